import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuildHarness, eventually } from '../helpers/build-harness.js';

function siteVersion(label: string): string {
  const root = mkdtempSync(join(tmpdir(), 'atoll-retained-'));
  writeFileSync(join(root, 'index.html'), `<h1>${label}</h1>\n`);
  return root;
}

describe('retention of artifacts and sources', () => {
  let h: BuildHarness;
  const folders: string[] = [];
  const builds: string[] = [];

  before(async () => {
    h = await BuildHarness.start({ buildEnv: { ATOLL_ARTIFACTS_KEPT: '2' } });
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  const record = (id: string) => h.api.testStore.store.builds.find(h.envId, id);
  const blobExists = (key: string) => existsSync(join(h.api.dataDir, 'blobs', key));

  it('keeps the artifacts of the newest builds up to ATOLL_ARTIFACTS_KEPT and archives the rest', async () => {
    for (const label of ['one', 'two', 'three', 'four']) {
      const folder = siteVersion(label);
      folders.push(folder);
      const { operation, buildId } = await h.upload('site', h.envId, folder);
      await h.waitDone(operation);
      builds.push(buildId);
    }
    const [one, two, three, four] = await Promise.all(builds.map(record));
    assert.ok(one && two && three && four);
    // Retention archives in one transaction and deletes the blobs after it, so wait for both.
    const pruned = async () =>
      (await record(builds[1]!))?.archived === true &&
      [one, two].every((b) => !blobExists(b.artifactKey) && !blobExists(b.sourceKey));
    assert.ok(await eventually(pruned, 10_000), 'builds one and two are archived and their blobs deleted');
    assert.equal((await record(builds[0]!))?.archived, true);
    assert.equal(three.archived, false);
    assert.equal(four.archived, false);
    assert.equal((await h.build(builds[0]!)).archived, true, 'the API shows it');
    for (const gone of [one, two]) {
      assert.equal(blobExists(gone.artifactKey), false, 'its artifact is deleted');
      assert.equal(blobExists(gone.sourceKey), false, 'its source is deleted');
    }
    for (const kept of [three, four]) assert.ok(blobExists(kept.artifactKey) && blobExists(kept.sourceKey));

    const refused = await h.api.request('POST', `${h.envPath}/builds/${builds[0]!}:redeploy`, {
      auth: h.owner,
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /archived: retention removed its artifact \(ATOLL_ARTIFACTS_KEPT\)/);
  });

  it('never removes the live deployment or the one live before it, nor an artifact a kept build shares', async () => {
    // Roll back to three: the new REDEPLOY build shares three's artifact and is live; four was live before it.
    const back = await h.api.request('POST', `${h.envPath}/builds/${builds[2]!}:redeploy`, { auth: h.owner });
    await h.waitDone(back.body.name);
    const redeployed = String(back.body.name).split('/').pop() ?? '';
    assert.match(await (await h.edge('/')).text(), /three/);
    assert.ok(await eventually(async () => (await record(builds[2]!))?.archived === true, 10_000));
    const [three, four, live] = await Promise.all([
      record(builds[2]!),
      record(builds[3]!),
      record(redeployed),
    ]);
    assert.equal(four?.archived, false, 'the one live before the live one stays');
    assert.equal(live?.archived, false);
    assert.ok(three && blobExists(three.artifactKey), 'three is archived but its artifact is the live one');
  });
});
