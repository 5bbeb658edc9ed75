import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostKeyFingerprint } from './ssh-host-key.js';

// github.com's published ed25519 host key and its published fingerprint.
const GITHUB_ED25519 =
  'github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';

describe('hostKeyFingerprint', () => {
  it("gives OpenSSH's SHA256 fingerprint of the first host key", () => {
    assert.equal(hostKeyFingerprint(GITHUB_ED25519), 'SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU');
    assert.equal(
      hostKeyFingerprint(`# comment\n\n[127.0.0.1]:2222 ${GITHUB_ED25519.split(' ').slice(1).join(' ')}\n`),
      'SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU',
    );
  });

  it('gives nothing for text without a host key', () => {
    assert.equal(hostKeyFingerprint(''), undefined);
    assert.equal(hostKeyFingerprint('github.com ssh-unknown AAAA'), undefined);
    assert.equal(hostKeyFingerprint('github.com ssh-ed25519 not*base64'), undefined);
  });
});
