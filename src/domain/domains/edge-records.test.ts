/** edgeRecordsFor: which records point a custom domain at the edge, next to the module that holds the rule. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeRecordsFor } from './edge-records.js';
import { isApexDomain, relativeRecordName } from './registered-domain.js';

const both = { cnameTarget: 'edge.atoll.test', addresses: ['203.0.113.7', '2001:db8::7'] };

describe('edgeRecordsFor', () => {
  it('tells an apex from a name under it, country registries’ second levels included', () => {
    assert.equal(isApexDomain('example.com'), true);
    assert.equal(isApexDomain('example.co.uk'), true);
    assert.equal(isApexDomain('www.example.com'), false);
    assert.equal(isApexDomain('www.example.co.uk'), false);
    assert.equal(isApexDomain('shop.example.io'), false);
  });

  it('names records relative to their zone, as DNS providers’ forms take them', () => {
    assert.equal(relativeRecordName('example.com', 'example.com'), '@');
    assert.equal(relativeRecordName('www.example.com', 'www.example.com'), 'www');
    assert.equal(
      relativeRecordName('_atoll-challenge.www.example.co.uk', 'www.example.co.uk'),
      '_atoll-challenge.www',
    );
    assert.equal(relativeRecordName('_atoll-challenge.example.com', 'example.com'), '_atoll-challenge');
  });

  it('gives an apex A and AAAA records, never a CNAME', () => {
    assert.deepEqual(edgeRecordsFor('example.com', both), [
      { type: 'A', name: 'example.com', value: '203.0.113.7' },
      { type: 'AAAA', name: 'example.com', value: '2001:db8::7' },
    ]);
  });

  it('gives a name under an apex a CNAME when a target is configured, otherwise the addresses', () => {
    assert.deepEqual(edgeRecordsFor('www.example.com', both), [
      { type: 'CNAME', name: 'www.example.com', value: 'edge.atoll.test' },
    ]);
    assert.deepEqual(edgeRecordsFor('www.example.com', { ...both, cnameTarget: undefined }), [
      { type: 'A', name: 'www.example.com', value: '203.0.113.7' },
      { type: 'AAAA', name: 'www.example.com', value: '2001:db8::7' },
    ]);
  });

  it('gives none when the edge has no configured address (the DNS check is skipped then)', () => {
    assert.deepEqual(edgeRecordsFor('www.example.com', { cnameTarget: undefined, addresses: [] }), []);
    // An apex cannot take the CNAME: nothing to publish that the check would accept.
    assert.deepEqual(edgeRecordsFor('example.com', { cnameTarget: 'edge.atoll.test', addresses: [] }), []);
  });
});
