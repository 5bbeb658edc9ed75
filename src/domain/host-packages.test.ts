/** The start's decision about the OS packages the sandbox needs: install, refuse with the fix, or start. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { installCommandLine, packagesFor, planHostSetup } from './host-packages.js';

const policy = { autoInstall: true, unsafeBuilds: false };

describe('host packages', () => {
  it('names each package once for the commands missing', () => {
    assert.deepEqual(packagesFor(['bwrap', 'setpriv', 'prlimit', 'nft']), [
      'bubblewrap',
      'nftables',
      'util-linux',
    ]);
  });

  it('starts as it is when nothing is missing and it runs as root', () => {
    assert.deepEqual(planHostSetup({ missingCommands: [], isRoot: true, hasAptGet: false }, policy), {
      kind: 'ready',
    });
  });

  it('installs what is missing, with the optional zstd and ca-certificates, as root with apt-get', () => {
    assert.deepEqual(
      planHostSetup({ missingCommands: ['bwrap', 'slirp4netns'], isRoot: true, hasAptGet: true }, policy),
      { kind: 'install', packages: ['bubblewrap', 'slirp4netns', 'zstd', 'ca-certificates'] },
    );
  });

  it('refuses without root, with the install and the start under sudo', () => {
    const plan = planHostSetup({ missingCommands: ['bwrap'], isRoot: false, hasAptGet: true }, policy);
    assert.deepEqual(plan, {
      kind: 'refuse',
      problem: 'missing bwrap, and the build worker must run as root',
      fix: "sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends bubblewrap' && sudo npm start",
    });
  });

  it('refuses without root even when every package is there: sandboxes need root', () => {
    const plan = planHostSetup({ missingCommands: [], isRoot: false, hasAptGet: true }, policy);
    assert.deepEqual(plan.kind === 'refuse' ? plan.fix : plan.kind, 'sudo npm start');
  });

  it('refuses without apt-get, naming the Debian packages', () => {
    const plan = planHostSetup({ missingCommands: ['nft'], isRoot: true, hasAptGet: false }, policy);
    assert.match(plan.kind === 'refuse' ? plan.fix : plan.kind, /nftables/);
  });

  it('refuses with the command when the operator turned installing off', () => {
    const plan = planHostSetup(
      { missingCommands: ['slirp4netns'], isRoot: true, hasAptGet: true },
      { autoInstall: false, unsafeBuilds: false },
    );
    assert.deepEqual(plan, {
      kind: 'refuse',
      problem: 'missing slirp4netns (ATOLL_INSTALL_PACKAGES=0: not installing them)',
      fix: installCommandLine(['slirp4netns'], true),
    });
  });

  it('starts unisolated, installing nothing, with ATOLL_UNSAFE_BUILDS', () => {
    const unsafe = { autoInstall: true, unsafeBuilds: true };
    assert.equal(
      planHostSetup({ missingCommands: ['bwrap'], isRoot: true, hasAptGet: true }, unsafe).kind,
      'unsafe',
    );
    assert.equal(
      planHostSetup({ missingCommands: [], isRoot: false, hasAptGet: true }, unsafe).kind,
      'unsafe',
    );
  });
});
