/** publicUrlOf: the environment URL rule, next to the module that holds it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publicUrlOf } from './hostnames.js';

const edge = { baseDomain: 'apps.example', scheme: 'http', port: 8081, tlsPort: 8443 } as const;

describe('publicUrlOf', () => {
  it('is the default address until a primary domain is ACTIVE', () => {
    assert.equal(publicUrlOf({ id: 'ABC', urlDomain: null }, edge), 'http://habc.apps.example:8081');
  });

  it('is the primary domain, on https once it has a certificate and the edge listens for HTTPS', () => {
    const domain = 'www.example.com';
    assert.equal(
      publicUrlOf({ id: 'e', urlDomain: { domain, https: false } }, edge),
      'http://www.example.com:8081',
    );
    assert.equal(
      publicUrlOf({ id: 'e', urlDomain: { domain, https: true } }, edge),
      'https://www.example.com:8443',
    );
    assert.equal(
      publicUrlOf({ id: 'e', urlDomain: { domain, https: true } }, { ...edge, tlsPort: undefined }),
      'http://www.example.com:8081',
    );
    assert.equal(
      publicUrlOf({ id: 'e', urlDomain: { domain, https: true } }, { ...edge, tlsPort: 443 }),
      'https://www.example.com',
    );
  });
});
