import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { makeDeepTree } from '../helpers/deep-tree.js';

/** Levels of `d/` whose path (5,000 bytes and more) no system call can name. */
const TOO_DEEP = 2_500;

/** Whether this machine lets us make a file immutable (ext4 and CAP_LINUX_IMMUTABLE): a removal that really fails. */
function immutableFilesWork(): boolean {
  const folder = mkdtempSync(join(tmpdir(), 'atoll-chattr-'));
  const file = join(folder, 'probe');
  writeFileSync(file, '');
  const works = spawnSync('chattr', ['+i', file]).status === 0;
  spawnSync('chattr', ['-i', file]);
  rmSync(folder, { recursive: true, force: true });
  return works;
}

/** Deployment folders on disk: removed when they serve nothing, however deep, without stopping anyone's work. */
describe('deployment folders', { skip: sandboxProblem() }, () => {
  let h: BuildHarness;
  const sources: string[] = [];
  const immutable: string[] = [];

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
  });
  after(async () => {
    for (const file of immutable) spawnSync('chattr', ['-i', file]);
    await h.stop();
    for (const folder of sources) rmSync(folder, { recursive: true, force: true });
  });

  /** A one-page site in a fresh folder, its page saying `label`. */
  function site(label: string): string {
    const root = mkdtempSync(join(tmpdir(), 'atoll-site-'));
    writeFileSync(join(root, 'index.html'), `<!doctype html><title>${label}</title><h1>${label}</h1>\n`);
    sources.push(root);
    return root;
  }

  const createEnvironment = (displayName: string) => h.createEnvironment(displayName);

  /** Uploads a site saying `label` to the environment and waits until it is live; returns its build id. */
  async function deploy(envId: string, label: string): Promise<string> {
    const { operation, buildId } = await h.upload('site', envId, site(label));
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${await h.logOf(buildId)}`);
    return buildId;
  }

  async function serves(envId: string, label: string): Promise<boolean> {
    const answer = await h.edge('/', { host: h.hostOf(envId) });
    return answer.status === 200 && (await answer.text()).includes(label);
  }

  const folderOf = (envId: string, buildId: string) => join(h.api.dataDir, 'deployments', envId, buildId);

  it("keeps deploying every environment when a replaced deployment's folder is deeper than a path can name (prevents one tenant stopping every tenant's builds)", async () => {
    const first = await deploy(h.envId, 'first of one');
    makeDeepTree(join(folderOf(h.envId, first), 'deep'), TOO_DEEP);
    const second = await deploy(h.envId, 'second of one');
    assert.ok(await serves(h.envId, 'second of one'));
    const other = await createEnvironment('Other tenant');
    await deploy(other, 'the other one');
    assert.ok(await serves(other, 'the other one'), "the other environment's build went live");
    assert.ok(
      await eventually(() => !existsSync(folderOf(h.envId, first)), 60_000),
      'the replaced folder is removed, deep as it is',
    );
    assert.deepEqual(
      readdirSync(join(h.api.dataDir, 'deployments', h.envId)),
      [second],
      'no piece of it is left',
    );
  });

  it(
    "keeps deploying other environments when a replaced deployment's folder cannot be removed, and the next cleanup removes it (prevents one tenant stopping every tenant's builds)",
    {
      skip: immutableFilesWork() ? false : 'chattr +i is not available here',
    },
    async () => {
      const envId = await createEnvironment('Stuck');
      const first = await deploy(envId, 'stuck first');
      const pinned = join(folderOf(envId, first), 'index.html');
      // Removal takes what it can: this one going means the removal was tried.
      const removable = join(folderOf(envId, first), 'removable.txt');
      writeFileSync(removable, 'goes');
      assert.equal(spawnSync('chattr', ['+i', pinned]).status, 0);
      immutable.push(pinned);
      await deploy(envId, 'stuck second');
      assert.ok(await serves(envId, 'stuck second'));
      const other = await createEnvironment('Unaffected');
      await deploy(other, 'unaffected');
      assert.ok(await serves(other, 'unaffected'), "the other environment's build went live");
      assert.ok(await eventually(() => !existsSync(removable), 60_000), 'the removal was tried');
      assert.ok(existsSync(pinned), 'the folder could not be removed (it is logged)');
      spawnSync('chattr', ['-i', pinned]);
      await h.api.services.runtime.sweepFolders();
      assert.ok(!existsSync(folderOf(envId, first)), 'the cleanup removed it');
      assert.ok(await serves(envId, 'stuck second'), 'the live deployment stays');
    },
  );

  it('restores the other live deployments when one cannot be restored, and sweeps folders too deep for a path (prevents one broken deployment stopping the restore)', async () => {
    const [good, broken, deep] = [
      await createEnvironment('Restored'),
      await createEnvironment('Broken'),
      await createEnvironment('Deep'),
    ];
    await deploy(good, 'restored page');
    const brokenBuild = await deploy(broken, 'broken page');
    const deepBuild = await deploy(deep, 'deep page');
    // As at a restart: nothing runs, the folders stay.
    await h.api.services.runtime.stop();
    const artifact = (await h.build(brokenBuild)) as { artifactDigest: string };
    const { store } = h.api.testStore;
    const brokenRecord = await store.builds.find(broken, brokenBuild);
    assert.ok(brokenRecord && artifact.artifactDigest !== '');
    rmSync(join(h.api.dataDir, 'blobs', brokenRecord.artifactKey));
    makeDeepTree(join(folderOf(deep, deepBuild), 'deep'), TOO_DEEP);
    const stale = join(h.api.dataDir, 'deployments', good, randomUUID());
    makeDeepTree(stale, TOO_DEEP);

    const summary = await h.api.services.deployments.restoreLive();
    assert.ok(summary.restored.includes(good) && summary.restored.includes(deep), JSON.stringify(summary));
    assert.deepEqual(
      summary.skipped.map((s) => s.environmentId),
      [broken],
    );
    assert.match(summary.skipped[0]?.reason ?? '', /the artifact of build .* is gone/);
    assert.ok(await serves(good, 'restored page'));
    assert.ok(await serves(deep, 'deep page'), 'restored over a folder too deep for a path');
    await h.api.services.runtime.sweepFolders();
    assert.ok(!existsSync(stale), 'the stale deep folder is swept');
    assert.ok(!existsSync(join(h.api.dataDir, 'deployments', broken)), 'what the broken one left is swept');
    assert.ok(await serves(good, 'restored page'));
  });

  it("removes a deleted environment's deployment folder however deep (prevents a deleted environment's files staying on disk)", async () => {
    const envId = await createEnvironment('Deleted');
    const buildId = await deploy(envId, 'to be deleted');
    makeDeepTree(join(folderOf(envId, buildId), 'deep'), TOO_DEEP);
    const deleted = await h.api.request('DELETE', `/v1/accounts/acme/apps/web/environments/${envId}`, {
      auth: h.owner,
    });
    assert.equal(deleted.status, 200);
    assert.ok(
      await eventually(() => !existsSync(join(h.api.dataDir, 'deployments', envId)), 60_000),
      'the folder is removed',
    );
  });

  it(
    "removes a deleted environment's folder at the next cleanup when its removal failed (prevents a deleted environment's files staying on disk)",
    {
      skip: immutableFilesWork() ? false : 'chattr +i is not available here',
    },
    async () => {
      const envId = await createEnvironment('Deleted but stuck');
      const buildId = await deploy(envId, 'deleted but stuck');
      const pinned = join(folderOf(envId, buildId), 'index.html');
      const removable = join(folderOf(envId, buildId), 'removable.txt');
      writeFileSync(removable, 'goes');
      assert.equal(spawnSync('chattr', ['+i', pinned]).status, 0);
      immutable.push(pinned);
      const deleted = await h.api.request('DELETE', `/v1/accounts/acme/apps/web/environments/${envId}`, {
        auth: h.owner,
      });
      assert.equal(deleted.status, 200);
      assert.ok(await eventually(() => !existsSync(removable), 60_000), 'the removal was tried');
      assert.ok(!(await serves(envId, 'deleted but stuck')), 'no longer served');
      assert.ok(existsSync(pinned), 'the removal failed (it is logged)');
      spawnSync('chattr', ['-i', pinned]);
      await h.api.services.deployments.removeDeleted();
      assert.ok(!existsSync(join(h.api.dataDir, 'deployments', envId)), 'the retry removed it');
    },
  );
});
