import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { DomainMappingRecord } from '../../src/services/kit/store-port.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { useTestStore } from '../helpers/test-store.js';

/** Domain mappings, claims and certificates, on both stores. */
describe(`domain mappings repository (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  let envA: string;
  let envB: string;
  let accountId: string;
  const now = new Date('2026-11-22T12:00:00Z');
  const day = 86_400_000;

  beforeEach(async () => {
    [envA, envB] = [randomUUID(), randomUUID()];
    await seedEnvironments(t.store, now, [envA, envB]);
    accountId = (await t.store.accounts.findByName('acme'))?.id ?? '';
  });

  function mapping(
    environmentId: string,
    domain: string,
    fields: Partial<DomainMappingRecord> = {},
  ): DomainMappingRecord {
    return {
      id: randomUUID(),
      environmentId,
      accountId,
      domain,
      primary: false,
      destination: null,
      state: 'ACTIVE',
      stateReason: '',
      txtName: `_atoll-challenge.${domain}`,
      txtValue: 'v',
      verifyTime: now,
      txtCheckTime: now,
      txtFound: '',
      dnsCheck: 'PASSED',
      dnsCheckDetail: '',
      dnsCheckTime: now,
      certificateState: 'PENDING',
      certificateDetail: '',
      certificateExpireTime: null,
      certificateAttempts: 0,
      certificateNextAttemptTime: null,
      certificateCheckTime: null,
      createTime: now,
      updateTime: now,
      ...fields,
    };
  }

  it('keeps one claim per domain: the first account holds it, and gives it up with its last mapping', async () => {
    const other = randomUUID();
    await t.store.accounts.insert({ id: other, name: 'globex', createTime: now });
    const [first, second] = await Promise.all([
      t.store.domainMappings.claim('example.com', accountId, now),
      t.store.domainMappings.claim('example.com', other, now),
    ]);
    assert.equal(first.accountId, second.accountId);
    const holder = first.accountId;
    const loser = holder === accountId ? other : accountId;
    // Whichever won, only the holder's last mapping going gives the domain up.
    const held = mapping(envA, 'example.com', { accountId: holder });
    await t.store.domainMappings.insert(held);
    await t.store.domainMappings.releaseClaimIfUnused('example.com', holder);
    await t.store.domainMappings.releaseClaimIfUnused('example.com', loser);
    assert.equal((await t.store.domainMappings.findClaim('example.com'))?.accountId, holder);
    await t.store.domainMappings.delete(held.id);
    await t.store.domainMappings.releaseClaimIfUnused('example.com', holder);
    assert.equal(await t.store.domainMappings.findClaim('example.com'), undefined);
  });

  it('refuses a second live mapping of a domain in one account, but not while the first is DELETING', async () => {
    await t.store.domainMappings.insert(mapping(envA, 'example.com', { state: 'DELETING' }));
    await t.store.domainMappings.insert(mapping(envB, 'example.com'));
    await assert.rejects(
      t.store.domainMappings
        .insert(mapping(envA, 'www.example.com'))
        .then(() => t.store.domainMappings.insert(mapping(envB, 'www.example.com'))),
    );
    assert.deepEqual(
      (await t.store.domainMappings.findInAccount(accountId, 'example.com')).map((m) => m.environmentId),
      [envB],
    );
  });

  it('lists certificates due: never issued, failed and due for a retry, or expiring within the renewal window', async () => {
    const due = (fields: Partial<DomainMappingRecord>, domain: string) =>
      t.store.domainMappings.insert(mapping(envA, domain, fields));
    await due({ certificateState: 'PENDING' }, 'new.example.com');
    await due(
      { certificateState: 'FAILED', certificateNextAttemptTime: new Date(now.getTime() - 1) },
      'retry.example.com',
    );
    await due(
      { certificateState: 'FAILED', certificateNextAttemptTime: new Date(now.getTime() + 60_000) },
      'later.example.com',
    );
    await due(
      { certificateState: 'ISSUED', certificateExpireTime: new Date(now.getTime() + 10 * day) },
      'expiring.example.com',
    );
    await due(
      { certificateState: 'ISSUED', certificateExpireTime: new Date(now.getTime() + 60 * day) },
      'fresh.example.com',
    );
    await due({ certificateState: 'PENDING', state: 'PENDING_VERIFICATION' }, 'unverified.example.com');
    await due({ certificateState: 'NOT_CONFIGURED' }, 'http-only.example.com');
    const listed = await t.store.domainMappings.listCertificatesDue(now, new Date(now.getTime() + 30 * day));
    assert.deepEqual(listed.map((m) => m.domain).sort(), [
      'expiring.example.com',
      'new.example.com',
      'retry.example.com',
    ]);
  });

  it('stores certificates with their sealed key, serves only those of ACTIVE mappings, and drops them with the mapping', async () => {
    const active = mapping(envA, 'a.example.com');
    const pending = mapping(envA, 'b.example.com', { state: 'PENDING_VERIFICATION' });
    await t.store.domainMappings.insert(active);
    await t.store.domainMappings.insert(pending);
    for (const m of [active, pending])
      await t.store.domainMappings.saveCertificate({
        mappingId: m.id,
        chainPem: `chain of ${m.domain}`,
        keySealed: 'sealed',
        notAfter: new Date(now.getTime() + 90 * day),
        issueTime: now,
      });
    // Saving again replaces it.
    await t.store.domainMappings.saveCertificate({
      mappingId: active.id,
      chainPem: 'renewed',
      keySealed: 'sealed2',
      notAfter: new Date(now.getTime() + 180 * day),
      issueTime: new Date(now.getTime() + day),
    });
    const served = await t.store.domainMappings.listServedCertificates();
    assert.deepEqual(
      served.map((c) => [c.domain, c.chainPem, c.keySealed]),
      [['a.example.com', 'renewed', 'sealed2']],
    );
    await t.store.domainMappings.delete(active.id);
    assert.deepEqual(await t.store.domainMappings.listServedCertificates(), []);
  });

  it("shows the environment's domains and url domain, and pages mappings in creation order", async () => {
    await t.store.environments.setDomains(envA, ['www.example.com', 'example.com'], {
      domain: 'www.example.com',
      https: true,
    });
    const environment = await t.store.environments.findById(envA);
    assert.deepEqual(environment?.domains, ['www.example.com', 'example.com']);
    assert.deepEqual(environment.urlDomain, { domain: 'www.example.com', https: true });
    for (let i = 0; i < 3; i++)
      await t.store.domainMappings.insert(
        mapping(envA, `d${String(i)}.example.com`, { createTime: new Date(now.getTime() + i) }),
      );
    const first = await t.store.domainMappings.list(envA, { pageSize: 2, after: undefined });
    assert.deepEqual(
      first.items.map((m) => m.domain),
      ['d0.example.com', 'd1.example.com'],
    );
    const second = await t.store.domainMappings.list(envA, { pageSize: 2, after: first.nextAfter });
    assert.deepEqual(
      second.items.map((m) => m.domain),
      ['d2.example.com'],
    );
    assert.equal(second.nextAfter, undefined);
  });
});
