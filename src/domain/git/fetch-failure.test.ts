import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFetchFailure, type FetchFailureContext } from './fetch-failure.js';

const HTTPS: FetchFailureContext = {
  url: 'https://git.example.com/acme/site.git',
  host: 'git.example.com',
  branch: 'main',
  transport: 'https',
  withToken: false,
  knownHost: false,
};
const SSH: FetchFailureContext = { ...HTTPS, url: 'git@git.example.com:acme/site.git', transport: 'ssh' };

describe('describeFetchFailure', () => {
  it('names the credential a host refused', () => {
    const prompt = [
      "fatal: could not read Username for 'https://git.example.com': terminal prompts disabled",
    ];
    assert.match(describeFetchFailure(prompt, HTTPS), /private repository needs an access token/);
    const refused = ["fatal: Authentication failed for 'https://git.example.com/acme/site.git/'"];
    assert.match(describeFetchFailure(refused, { ...HTTPS, withToken: true }), /refused the access token/);
    assert.match(
      describeFetchFailure(['git@git.example.com: Permission denied (publickey).'], SSH),
      /refused the deploy key/,
    );
  });

  it('says that a recorded host key changed', () => {
    const lines = [
      '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
      '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
      'Host key verification failed.',
    ];
    assert.match(
      describeFetchFailure(lines, { ...SSH, knownHost: true }),
      /host key of git.example.com changed/,
    );
  });

  it('names a missing branch, a missing repository and an unreachable host', () => {
    assert.match(
      describeFetchFailure(["fatal: couldn't find remote ref refs/heads/main"], HTTPS),
      /branch "main" does not exist/,
    );
    assert.match(
      describeFetchFailure(['remote: Repository not found.', "fatal: repository '…' not found"], HTTPS),
      /was not found/,
    );
    assert.match(
      describeFetchFailure(["fatal: unable to access '…': Could not resolve host: git.example.com"], HTTPS),
      /could not be resolved/,
    );
    assert.match(
      describeFetchFailure(['ssh: connect to host git.example.com port 22: Connection refused'], SSH),
      /could not be reached/,
    );
  });

  it('says that a certificate is not trusted', () => {
    assert.match(
      describeFetchFailure(
        ["fatal: unable to access '…': server certificate verification failed. CAfile: none CRLfile: none"],
        HTTPS,
      ),
      /certificate of git.example.com is not trusted.*ATOLL_GIT_CA_FILE/,
    );
  });

  it("falls back to git's last lines", () => {
    assert.equal(
      describeFetchFailure(['error: something odd', 'fatal: the end'], HTTPS),
      'fetching https://git.example.com/acme/site.git failed: error: something odd | fatal: the end',
    );
  });
});
