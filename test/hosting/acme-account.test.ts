import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as acme from 'acme-client';
import { sql } from 'kysely';
import { AcmeCertificateAuthority } from '../../src/adapters/acme-certificate-authority.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { TestPebble, type PreparedPebble } from '../helpers/pebble.js';
import { secretBoxForTests } from '../helpers/test-api.js';
import { useTestStore } from '../helpers/test-store.js';

/**
 * The ACME account key lives in the store that every scheduler shares (migration 0016), so that a
 * platform of several scheduler processes on several machines orders under one ACME account. Pebble is
 * the CA: it answers the account's URL for a key, which tells two accounts apart.
 */
describe('ACME account key: one per platform, in the store', () => {
  const testStore = useTestStore();
  const secretBox = secretBoxForTests();
  let dns: TestDnsServer;
  let prepared: PreparedPebble;
  let pebble: TestPebble;
  const folders: string[] = [];

  before(async () => {
    dns = await TestDnsServer.start();
    prepared = await TestPebble.prepare();
    // No certificate is ordered here: the HTTP-01 port is never reached.
    pebble = await TestPebble.start(prepared, { httpPort: 5002, dnsServer: dns.address });
  });
  after(async () => {
    await pebble.stop();
    await dns.stop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  /** A scheduler process's certificate authority: its own data folder, the shared store. */
  function processCa(): { ca: AcmeCertificateAuthority; legacyFile: string } {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-acme-account-'));
    folders.push(dataDir);
    const legacyFile = join(dataDir, 'acme', 'account-key.sealed');
    const ca = new AcmeCertificateAuthority({
      directoryUrl: prepared.directoryUrl,
      email: 'ops@atoll.test',
      caFile: prepared.caFile,
      accountKeys: testStore.store.acmeAccountKeys,
      legacyAccountKeyFile: legacyFile,
      secretBox,
      clock: systemClock,
    });
    return { ca, legacyFile };
  }

  async function storedRows(): Promise<string[]> {
    const rows = await sql<{
      sealed_key: string;
    }>`select sealed_key from acme_account_keys`.execute(testStore.db);
    return rows.rows.map((row) => row.sealed_key);
  }

  it('two schedulers over one store register one ACME account (prevents two ACME accounts for one platform)', async () => {
    const first = processCa();
    const second = processCa();
    const url = await first.ca.accountUrl();
    assert.equal(await second.ca.accountUrl(), url);
    assert.equal((await storedRows()).length, 1);
  });

  it('two schedulers starting together end with one key and one account (prevents two ACME accounts for one platform)', async () => {
    const [a, b] = await Promise.all([processCa().ca.accountUrl(), processCa().ca.accountUrl()]);
    assert.equal(a, b);
    assert.equal((await storedRows()).length, 1);
  });

  it('a race of two creators in the store ends with the first key for both', async () => {
    const keys = await Promise.all(
      ['one', 'two', 'three'].map((name) =>
        testStore.store.acmeAccountKeys.createIfAbsent(secretBox.seal(name), new Date()),
      ),
    );
    assert.equal(new Set(keys).size, 1);
    assert.deepEqual(await storedRows(), [keys[0]]);
  });

  it('keeps the key sealed in the store, never the PEM in the clear', async () => {
    await processCa().ca.accountUrl();
    const [sealed] = await storedRows();
    assert.ok(sealed !== undefined);
    assert.doesNotMatch(sealed, /PRIVATE KEY|BEGIN/);
    assert.match(secretBox.open(sealed), /-----BEGIN (EC )?PRIVATE KEY-----/);
  });

  it("moves an older release's key file into the store, so an existing install keeps its account", async () => {
    // Made first: its CA file is what acme-client trusts Pebble's HTTPS by.
    const upgraded = processCa();
    const pem = (await acme.crypto.createPrivateEcdsaKey()).toString();
    const existing = new acme.Client({ directoryUrl: prepared.directoryUrl, accountKey: pem });
    await existing.createAccount({ termsOfServiceAgreed: true, contact: ['mailto:ops@atoll.test'] });
    const existingUrl = existing.getAccountUrl();

    mkdirSync(join(upgraded.legacyFile, '..'), { recursive: true });
    writeFileSync(upgraded.legacyFile, secretBox.seal(pem), { mode: 0o600 });
    assert.equal(await upgraded.ca.accountUrl(), existingUrl);
    // Another scheduler, without the file, uses the same account from the store.
    assert.equal(await processCa().ca.accountUrl(), existingUrl);
    const [sealed] = await storedRows();
    assert.equal(secretBox.open(sealed ?? ''), pem);
  });
});
