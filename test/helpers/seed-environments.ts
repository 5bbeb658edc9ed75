/** The account, app and environments that store tests start from, written through the repositories. */
import { randomUUID } from 'node:crypto';
import type { BuildRecord, Store } from '../../src/services/kit/store-port.js';

/**
 * What store tests start from: the account `acme` with its app `web` (UK) and one uploadable
 * environment per id, all created at `now`; answers the app's primary key.
 */
export async function seedEnvironments(
  store: Store,
  now: Date,
  environmentIds: readonly string[],
): Promise<string> {
  const accountId = randomUUID();
  await store.accounts.insert({ id: accountId, name: 'acme', createTime: now });
  const appPk = randomUUID();
  await store.apps.insert({
    id: appPk,
    accountId,
    appId: 'web',
    region: 'UK',
    sourceKind: 'uploadable',
    createTime: now,
    updateTime: now,
  });
  for (const id of environmentIds)
    await store.environments.insert({
      id,
      appPk,
      displayName: 'P',
      branch: 'uploadable',
      wpEnvironment: '',
      shellVariablesSealed: 's',
      rootDirectory: '',
      httpsRedirect: false,
      liveBuildId: null,
      reconciling: false,
      createTime: now,
      updateTime: now,
      gitDepth: 1,
      previews: { enabled: false, allowForks: false },
      preview: null,
    });
  return appPk;
}

/**
 * A finished build of an environment as store tests write it: SUCCEEDED, with a source and an artifact
 * of their own, created, started and finished at `now`; `fields` change what a test needs.
 */
export function finishedBuild(
  environmentId: string,
  now: Date,
  fields: Partial<BuildRecord> = {},
): BuildRecord {
  return {
    id: randomUUID(),
    environmentId,
    state: 'SUCCEEDED',
    phase: 'PHASE_UNSPECIFIED',
    trigger: 'UPLOAD',
    branch: 'uploadable',
    commitSha: '',
    commitMessage: '',
    commitAuthor: '',
    sourceKey: `sources/${randomUUID()}.zip`,
    sourceDigest: 'sha256:x',
    sourceBytes: 1,
    artifactDigest: 'sha256:y',
    artifactKey: `artifacts/${randomUUID()}.tar.zst`,
    nodeVersion: '22.1.0',
    packageManager: 'npm@10.9.0',
    variablesSealed: 's',
    archived: false,
    liveTime: null,
    framework: 'static',
    dependencies: [],
    failureMessage: '',
    failureExitCode: null,
    createTime: now,
    startTime: now,
    finishTime: now,
    ...fields,
  };
}
