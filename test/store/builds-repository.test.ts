import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { finishedBuild, seedEnvironments } from '../helpers/seed-environments.js';
import { useTestStore } from '../helpers/test-store.js';

describe(`builds by short id (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  let environmentId: string;
  let otherEnvironmentId: string;

  beforeEach(async () => {
    environmentId = randomUUID();
    otherEnvironmentId = randomUUID();
    await seedEnvironments(t.store, new Date(), [environmentId, otherEnvironmentId]);
  });

  async function insert(id: string, environment = environmentId): Promise<void> {
    await t.store.builds.insert(finishedBuild(environment, new Date(), { id }));
  }

  it("lists the environment's ids that start with a prefix, the first and last possible ones included", async () => {
    const lowest = 'abcdef01-0000-0000-0000-000000000000';
    const highest = 'abcdef01-ffff-ffff-ffff-ffffffffffff';
    const middle = 'abcdef01-8000-4000-8000-000000000000';
    for (const id of [middle, highest, lowest]) await insert(id);
    await insert('abcdef00-ffff-ffff-ffff-ffffffffffff');
    await insert('abcdef02-0000-0000-0000-000000000000');
    await insert('abcdef01-7777-4000-8000-000000000000', otherEnvironmentId);

    assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, 'abcdef01', 10), [
      lowest,
      middle,
      highest,
    ]);
    assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, 'abcdef01', 2), [
      lowest,
      middle,
    ]);
    assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, 'abcdef01-8', 10), [middle]);
    assert.deepEqual(await t.store.builds.listIdsStartingWith(otherEnvironmentId, 'abcdef01', 10), [
      'abcdef01-7777-4000-8000-000000000000',
    ]);
    assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, 'ABCDEF01-8', 10), [middle]);
    assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, 'abcdef03', 10), []);
  });

  it('lists nothing for what is not a prefix of 8 to 35 characters (no pattern reaches SQL)', async () => {
    await insert('abcdef01-0000-4000-8000-000000000000');
    for (const prefix of [
      'abcdef0',
      'abcdef0_',
      'abcdef0%',
      '________',
      'abcdef01-0000-4000-8000-000000000000',
    ])
      assert.deepEqual(await t.store.builds.listIdsStartingWith(environmentId, prefix, 10), [], prefix);
  });
});
