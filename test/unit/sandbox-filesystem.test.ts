import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mountArgs, readHostPaths, SYSTEM_ETC_PATHS } from '../../src/sandbox/sandbox-filesystem.js';

describe('mountArgs (the sandbox file system as bubblewrap arguments)', () => {
  it('makes each folder leading to a mount point 0755 once, in the empty root and in a tmpfs', () => {
    const args = mountArgs([
      { kind: 'ro-bind', source: '/etc/passwd', target: '/etc/passwd' },
      { kind: 'ro-bind', source: '/etc/group', target: '/etc/group' },
      { kind: 'tmpfs', target: '/tmp', perms: '1777' },
      { kind: 'tmpfs', target: '/tmp/a/data' },
      { kind: 'bind', source: '/tmp/a/data/builds/b1', target: '/tmp/a/data/builds/b1' },
    ]);
    assert.deepEqual(args, [
      ...['--perms', '0755', '--dir', '/etc'],
      ...['--ro-bind', '/etc/passwd', '/etc/passwd'],
      ...['--ro-bind', '/etc/group', '/etc/group'],
      ...['--perms', '1777', '--tmpfs', '/tmp'],
      ...['--perms', '0755', '--dir', '/tmp/a'],
      ...['--tmpfs', '/tmp/a/data'],
      ...['--perms', '0755', '--dir', '/tmp/a/data/builds'],
      ...['--bind', '/tmp/a/data/builds/b1', '/tmp/a/data/builds/b1'],
    ]);
  });

  it("makes no folder inside a bound folder of the host's (it has its own, read-only)", () => {
    const args = mountArgs([
      { kind: 'ro-bind', source: '/usr', target: '/usr' },
      { kind: 'bind', source: '/srv/atoll/builds/b1', target: '/srv/atoll/builds/b1' },
      { kind: 'bind', source: '/srv/atoll/builds/b1/source', target: '/srv/atoll/builds/b1/source' },
      { kind: 'ro-bind', source: '/usr/local/share/x', target: '/usr/local/share/x' },
    ]);
    assert.deepEqual(
      args.filter((_, i) => args[i - 1] === '--dir'),
      ['/srv', '/srv/atoll', '/srv/atoll/builds'],
    );
  });

  it('makes a folder again once a tmpfs mounted over it hid it', () => {
    const args = mountArgs([
      { kind: 'ro-bind', source: '/x/one', target: '/run/a/one' },
      { kind: 'tmpfs', target: '/run' },
      { kind: 'ro-bind', source: '/x/two', target: '/run/a/two' },
    ]);
    assert.deepEqual(
      args.filter((_, i) => args[i - 1] === '--dir'),
      ['/run', '/run/a', '/run/a'],
    );
  });

  it('writes links, devices, proc and data files with their own options', () => {
    assert.deepEqual(
      mountArgs([
        { kind: 'symlink', link: 'usr/bin', target: '/bin' },
        { kind: 'dev', target: '/dev' },
        { kind: 'proc', target: '/proc' },
        { kind: 'data', fd: 4, target: '/etc/resolv.conf', perms: '0644' },
      ]),
      [
        ...['--symlink', 'usr/bin', '/bin'],
        ...['--dev', '/dev'],
        ...['--proc', '/proc'],
        ...['--perms', '0755', '--dir', '/etc'],
        ...['--perms', '0644', '--ro-bind-data', '4', '/etc/resolv.conf'],
      ],
    );
  });
});

describe('readHostPaths (what of the host a sandbox sees)', () => {
  const root = mkdtempSync(join(tmpdir(), 'atoll-host-paths-'));
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('binds files and folders, keeps links into /usr as links, follows other links and leaves missing ones out', () => {
    writeFileSync(join(root, 'file'), 'x');
    symlinkSync('/usr/bin', join(root, 'into-usr'));
    symlinkSync(join(root, 'file'), join(root, 'elsewhere'));
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    const paths = ['file', 'into-usr', 'elsewhere', 'dangling', 'missing'].map((name) => join(root, name));
    assert.deepEqual(readHostPaths(paths), [
      { kind: 'ro-bind', source: join(root, 'file'), target: join(root, 'file') },
      { kind: 'symlink', link: '/usr/bin', target: join(root, 'into-usr') },
      { kind: 'ro-bind', source: join(root, 'file'), target: join(root, 'elsewhere') },
    ]);
  });

  it('holds no part of /etc with keys, credentials or the host resolver, and nothing outside /etc', () => {
    for (const path of SYSTEM_ETC_PATHS) {
      assert.ok(path.startsWith('/etc/'), path);
      assert.doesNotMatch(path, /shadow|gshadow|sudoers|ssh|private|npmrc|gitconfig|resolv\.conf|machine-id/);
    }
  });
});
