/** The account, app and environments that store tests start from, written through the repositories. */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/services/kit/store-port.js';

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
