import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Credentials } from '../helpers/test-api.js';

/** Deleting environments (alone or with their app) frees their build caches on disk. */
describe('disk of deleted environments (regression: build caches left behind)', () => {
  let api: TestApi;
  let owner: Credentials;

  before(async () => {
    api = await TestApi.start();
    owner = await api.createUploadApp();
  });
  after(() => api.close());

  async function environmentWithCache(displayName: string): Promise<string> {
    const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName, branch: 'uploadable' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
    mkdirSync(join(cacheOf(id), 'npm'), { recursive: true });
    return id;
  }
  const cacheOf = (id: string) => join(api.dataDir, 'cache', 'environments', id);

  async function gone(path: string): Promise<boolean> {
    for (let i = 0; i < 50 && existsSync(path); i++) await new Promise((r) => setTimeout(r, 20));
    return !existsSync(path);
  }

  it('removes the cache of a deleted environment, and keeps the others', async () => {
    const parent = await environmentWithCache('Parent');
    const other = await environmentWithCache('Other');
    const deleted = await api.request('DELETE', `/v1/accounts/acme/apps/web/environments/${parent}`, {
      auth: owner,
    });
    assert.equal(deleted.status, 200);
    assert.ok(await gone(cacheOf(parent)));
    assert.ok(existsSync(cacheOf(other)));
  });

  it('removes the caches of every environment of a deleted app', async () => {
    const [first, second] = [await environmentWithCache('One'), await environmentWithCache('Two')];
    const deleted = await api.request('DELETE', '/v1/accounts/acme/apps/web', { auth: owner });
    assert.equal(deleted.status, 200);
    assert.ok(await gone(cacheOf(first)));
    assert.ok(await gone(cacheOf(second)));
  });
});
