import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pngsInto, portalJourney, WIDTHS, type JourneyFacts } from './journey.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('portal in a browser: the whole journey of a new user, with the screenshots of docs/portal.md', () => {
  let dir: string;
  let facts: JourneyFacts;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atoll-journey-'));
    facts = await portalJourney(dir, pngsInto(dir));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('deploys an uploaded .zip that a visitor then opens through the edge', () => {
    assert.equal(facts.liveHeading, 'Hello from a static site');
  });

  it('made credentials in the page that a plain HTTP request can use', () => {
    assert.equal(facts.credentialStatus, 200);
    assert.deepEqual(facts.credentialApps, ['shop', 'web']);
  });

  it('made webhooks whose rebuild URL, called with no credentials, starts a build the page lists', () => {
    assert.equal(facts.webhookStatus, 200);
    assert.match(facts.webhookBuildTrigger, /Rebuild/);
  });

  it('took each screenshot docs/portal.md shows, and the document shows each', async () => {
    const doc = await readFile(new URL('../../docs/portal.md', import.meta.url), 'utf8');
    for (const name of facts.shots) {
      for (const file of [name, `${name}-${String(WIDTHS[1])}`]) {
        const png = await readFile(join(dir, `${file}.png`));
        assert.ok(png.subarray(0, 8).equals(PNG_SIGNATURE), `${file}.png is not a PNG`);
        assert.ok(png.length > 10_000, `${file}.png is nearly empty`);
        assert.ok(doc.includes(`(portal/${file}.png)`), `docs/portal.md does not show ${file}.png`);
      }
    }
    assert.equal(facts.shots.length, 14);
  });

  it('has no serious or critical accessibility violation on any page, at both widths, light and dark', () => {
    assert.deepEqual(facts.accessibility, []);
  });

  it('needs no inline style or script the CSP refuses, and throws nothing, on any page', () => {
    assert.deepEqual(facts.faults, []);
  });
});
