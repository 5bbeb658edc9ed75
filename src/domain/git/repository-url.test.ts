import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  commitPageUrl,
  resolveSubmoduleUrl,
  checkRepositoryUrl,
  guessProvider,
  hostedCloneUrl,
  repositoryDisplayName,
  type RepositoryUrl,
} from './repository-url.js';

function accepted(url: string): RepositoryUrl {
  const check = checkRepositoryUrl(url);
  assert.ok(check.ok, `${url}: ${check.ok ? '' : check.rule}`);
  return check.repository;
}

function refusedFor(url: string): string {
  const check = checkRepositoryUrl(url);
  assert.ok(!check.ok, `${url} was accepted`);
  return check.rule;
}

describe('checkRepositoryUrl', () => {
  it('accepts https URLs, with or without .git and a port', () => {
    assert.deepEqual(accepted('https://github.com/acme/site.git'), {
      url: 'https://github.com/acme/site.git',
      transport: 'https',
      host: 'github.com',
      port: undefined,
      user: undefined,
      path: 'acme/site',
    });
    const nested = accepted(' https://GitLab.example.com:8443/group/sub/site ');
    assert.equal(nested.url, 'https://GitLab.example.com:8443/group/sub/site');
    assert.equal(nested.host, 'gitlab.example.com');
    assert.equal(nested.port, 8443);
    assert.equal(nested.path, 'group/sub/site');
  });

  it('accepts ssh URLs and the scp form, with the user they name (git by default)', () => {
    const ssh = accepted('ssh://git@git.example.com:2222/srv/site.git');
    assert.equal(ssh.transport, 'ssh');
    assert.equal(ssh.user, 'git');
    assert.equal(ssh.port, 2222);
    assert.equal(ssh.path, 'srv/site');
    assert.equal(accepted('ssh://git.example.com/site.git').user, 'git');
    const scp = accepted('git@github.com:acme/site.git');
    assert.deepEqual(
      { transport: scp.transport, user: scp.user, host: scp.host, port: scp.port, path: scp.path },
      { transport: 'ssh', user: 'git', host: 'github.com', port: undefined, path: 'acme/site' },
    );
    assert.equal(accepted('deploy@192.0.2.10:/srv/git/site.git').path, 'srv/git/site');
    assert.equal(accepted('ssh://git@[2001:db8::1]:22/site.git').host, '2001:db8::1');
  });

  it('refuses the transports that run programs or read the disk (prevents ext:: and file:// clones)', () => {
    assert.match(refusedFor('ext::sh -c touch% /tmp/pwned'), /spaces/);
    assert.match(refusedFor('ext::ssh-evil'), /ext::/);
    assert.match(refusedFor('file:///etc/atoll'), /not file/);
    assert.match(refusedFor('/srv/git/site.git'), /local paths are refused/);
    assert.match(refusedFor('./site'), /local paths are refused/);
    assert.match(refusedFor('git://github.com/acme/site.git'), /not git .*unauthenticated/);
    assert.match(refusedFor('http://github.com/acme/site.git'), /not http/);
    assert.match(refusedFor('fd::3'), /ext::|https/);
  });

  it('refuses credentials in the URL (prevents a token shown wherever the URL is)', () => {
    assert.match(refusedFor('https://x-access-token:ghp_secret@github.com/acme/site.git'), /accessToken/);
    assert.match(refusedFor('https://ghp_secret@github.com/acme/site.git'), /accessToken/);
    assert.match(refusedFor('ssh://git:password@example.com/site.git'), /password/);
  });

  it('refuses hosts, users and paths git or ssh would read as options (prevents option injection)', () => {
    assert.match(refusedFor('ssh://-oProxyCommand=touch%20x/site.git'), /host|valid URL/);
    assert.match(refusedFor('-oProxyCommand=x@host:site.git'), /ssh user/);
    assert.match(refusedFor('git@-oProxyCommand=x:site.git'), /host/);
    assert.match(refusedFor('https://github.com/acme/-upload-pack=x'), /path segment/);
    assert.match(refusedFor('https://github.com/acme/../site.git'), /path segment|repository/);
    assert.match(refusedFor('https://github.com/'), /must name a repository/);
    assert.match(refusedFor('https://github.com/acme/site.git?ref=main'), /query/);
    assert.match(refusedFor('https://github.com/acme/si te.git'), /spaces/);
    assert.match(refusedFor('https://github.com/acme/site\u0000.git'), /control/);
    assert.match(refusedFor(''), /is required/);
    assert.match(refusedFor(`https://github.com/${'a'.repeat(3000)}`), /at most/);
  });
});

describe('guessProvider', () => {
  it('knows the hosted providers and the usual self-hosted names', () => {
    assert.equal(guessProvider('github.com'), 'GITHUB');
    assert.equal(guessProvider('GitHub.com'), 'GITHUB');
    assert.equal(guessProvider('gitlab.com'), 'GITLAB');
    assert.equal(guessProvider('gitlab.example.org'), 'GITLAB');
    assert.equal(guessProvider('bitbucket.org'), 'BITBUCKET');
    assert.equal(guessProvider('codeberg.org'), 'GITEA');
    assert.equal(guessProvider('gitea.example.org'), 'GITEA');
    assert.equal(guessProvider('forgejo.example.org'), 'GITEA');
    assert.equal(guessProvider('git.example.org'), 'GENERIC');
    assert.equal(guessProvider('notgithub.com'), 'GENERIC');
  });
});

describe('repository names', () => {
  it('shows owner/repo, the last two segments of nested groups', () => {
    assert.equal(repositoryDisplayName('acme/site'), 'acme/site');
    assert.equal(repositoryDisplayName('group/sub/site'), 'sub/site');
    assert.equal(repositoryDisplayName('site'), 'site');
  });

  it('makes the https clone URL of a hosted owner/repo, and none for other providers or names', () => {
    assert.equal(hostedCloneUrl('GITHUB', 'acme/site'), 'https://github.com/acme/site.git');
    assert.equal(hostedCloneUrl('GITLAB', 'group/sub/site.git'), 'https://gitlab.com/group/sub/site.git');
    assert.equal(hostedCloneUrl('BITBUCKET', 'acme/site'), 'https://bitbucket.org/acme/site.git');
    assert.equal(hostedCloneUrl('GENERIC', 'acme/site'), undefined);
    assert.equal(hostedCloneUrl('GITHUB', 'site'), undefined);
    assert.equal(hostedCloneUrl('GITHUB', 'acme/../site'), undefined);
  });
});

describe('resolveSubmoduleUrl', () => {
  it('resolves relative URLs against the repository as git does, and keeps others', () => {
    assert.equal(
      resolveSubmoduleUrl('https://h.example/o/site.git', '../lib.git'),
      'https://h.example/o/lib.git',
    );
    assert.equal(
      resolveSubmoduleUrl('https://h.example/o/site.git', './lib'),
      'https://h.example/o/site.git/lib',
    );
    assert.equal(
      resolveSubmoduleUrl('git@h.example:o/site.git', '../lib.git'),
      'ssh://git@h.example/o/lib.git',
    );
    assert.equal(resolveSubmoduleUrl('https://h.example/o/site.git', 'file:///etc'), 'file:///etc');
  });
});

describe('commitPageUrl', () => {
  const sha = 'e'.repeat(40);
  it("links a commit on each hosted provider's web pages, and on no plain git server", () => {
    assert.equal(
      commitPageUrl('GITHUB', 'git@github.com:acme/site.git', sha),
      `https://github.com/acme/site/commit/${sha}`,
    );
    assert.equal(
      commitPageUrl('GITLAB', 'https://gitlab.com/group/sub/site.git', sha),
      `https://gitlab.com/group/sub/site/-/commit/${sha}`,
    );
    assert.equal(
      commitPageUrl('GITEA', 'https://forge.example:3000/o/r.git', sha),
      `https://forge.example:3000/o/r/commit/${sha}`,
    );
    assert.equal(
      commitPageUrl('BITBUCKET', 'https://bitbucket.org/o/r.git', sha),
      `https://bitbucket.org/o/r/commits/${sha}`,
    );
    assert.equal(commitPageUrl('GENERIC', 'https://git.example/o/r.git', sha), undefined);
    assert.equal(commitPageUrl('GITHUB', 'https://github.com/o/r.git', 'abc'), undefined);
  });
});
