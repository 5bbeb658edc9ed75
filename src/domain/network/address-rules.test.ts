import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isForbiddenAddress } from '../../adapters/guarded-connector.js';
import { isPrivateAddress } from './address-rules.js';

describe('address rules of outbound requests', () => {
  it('refuses the documentation ranges (prevents reaching a host numbered from them)', () => {
    for (const address of [
      '192.0.2.0',
      '192.0.2.2',
      '192.0.2.255',
      '198.51.100.0',
      '198.51.100.77',
      '198.51.100.255',
      '203.0.113.0',
      '203.0.113.200',
      '203.0.113.255',
      '2001:db8::',
      '2001:db8::1',
      '2001:0db8:ffff:ffff:ffff:ffff:ffff:ffff',
      '::ffff:192.0.2.2',
      '::ffff:c000:202',
      '::ffff:203.0.113.9',
    ])
      assert.equal(isPrivateAddress(address), true, address);
  });

  it('allows the public neighbours of the documentation ranges', () => {
    for (const address of [
      '192.0.1.255',
      '192.0.3.0',
      '198.51.99.255',
      '198.51.101.0',
      '203.0.112.255',
      '203.0.114.0',
      '2001:db7:ffff::1',
      '2001:db9::1',
      '2606:4700::1111',
    ])
      assert.equal(isPrivateAddress(address), false, address);
  });

  it("refuses the host's own addresses, public ones too, however they are spelt", () => {
    const own = ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '127.0.0.1'];
    for (const address of [
      '93.184.215.14',
      '::ffff:93.184.215.14',
      '::ffff:5db8:d70e',
      '2606:2800:021f:cb07:6820:80da:af6b:8b2c',
    ])
      assert.equal(isForbiddenAddress(address, own), true, address);
    for (const address of ['93.184.215.15', '2606:2800:21f:cb07:6820:80da:af6b:8b2d'])
      assert.equal(isForbiddenAddress(address, own), false, address);
    // The address rules apply whatever the host has.
    assert.equal(isForbiddenAddress('10.1.2.3', []), true);
    assert.equal(isForbiddenAddress('198.51.100.1', []), true);
  });
});
