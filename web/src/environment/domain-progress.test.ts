/** domainProgress: the Domains tab's words for each state of a mapping, next to the module that holds them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DomainMapping } from '../../../src/client/api-client.js';
import { domainProgress } from './domain-progress.js';

const base: DomainMapping = {
  name: 'accounts/a/apps/w/environments/e/domainMappings/www.example.com',
  domain: 'www.example.com',
  primary: false,
  state: 'PENDING_VERIFICATION',
  stateReason: '',
  txtRecord: { name: '_atoll-challenge.www.example.com', value: 'v', found: '' },
  edgeRecords: [{ type: 'CNAME', name: 'www.example.com', value: 'edge.atoll.test' }],
  dnsCheck: { result: 'PENDING', detail: '' },
  certificate: { state: 'NOT_CONFIGURED', detail: '' },
  destinationDomainMapping: '',
  destinationDomainMappingState: '',
  createTime: '2026-01-01T00:00:00Z',
  updateTime: '2026-01-01T00:00:00Z',
};

describe('domainProgress', () => {
  it('waits for the TXT record, saying what a lookup found instead', () => {
    assert.equal(domainProgress(base).headline, 'Waiting for the TXT record…');
    const wrong = domainProgress({ ...base, txtRecord: { ...base.txtRecord, found: 'TXT "other" at x' } });
    assert.match(wrong.help, /^The last lookup found TXT "other" at x, not the value above/);
  });

  it('once verified, waits for the records that point the domain here, naming them', () => {
    const progress = domainProgress({
      ...base,
      verifyTime: '2026-01-01T00:01:00Z',
      dnsCheck: {
        result: 'FAILED',
        detail: 'expected a CNAME to edge.atoll.test, found no A/AAAA records (NXDOMAIN)',
      },
    });
    assert.equal(progress.headline, 'Ownership verified. Waiting for the domain to point here…');
    assert.match(
      progress.help,
      /^The last lookup found no A\/AAAA records \(NXDOMAIN\)\. Create the CNAME record above/,
    );
  });

  it('reads the certificate of an active domain: being issued, valid until, failed', () => {
    const active = { ...base, state: 'ACTIVE' as const, verifyTime: '2026-01-01T00:01:00Z' };
    assert.equal(
      domainProgress({ ...active, certificate: { state: 'PENDING', detail: '' } }).headline,
      'Active. Certificate being issued…',
    );
    assert.match(
      domainProgress({
        ...active,
        certificate: { state: 'ISSUED', detail: '', expireTime: '2026-04-01T12:00:00Z' },
      }).headline,
      /^Active, certificate valid until .*2026/,
    );
    const failed = domainProgress({ ...active, certificate: { state: 'FAILED', detail: 'rate limited' } });
    assert.equal(failed.tone, 'problem');
    assert.match(failed.help, /^rate limited\. It is tried again on its own/);
  });

  it('says another account holds a FAILED domain, and what to do', () => {
    const failed = domainProgress({ ...base, state: 'FAILED' });
    assert.equal(failed.badge, 'Failed');
    assert.match(failed.help, /Remove it here/);
  });
});
