import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchRefOf } from './fetch-ref.js';

describe('fetchRefOf', () => {
  it("fetches a branch, and a preview's request head where the host keeps one", () => {
    assert.equal(fetchRefOf('GITHUB', 'main'), 'refs/heads/main');
    assert.equal(fetchRefOf('GITHUB', 'feature', 12), 'refs/pull/12/head');
    assert.equal(fetchRefOf('GITEA', 'feature', 3), 'refs/pull/3/head');
    assert.equal(fetchRefOf('GITLAB', 'feature', 7), 'refs/merge-requests/7/head');
    assert.equal(fetchRefOf('BITBUCKET', 'feature', 7), 'refs/heads/feature');
    assert.equal(fetchRefOf('GENERIC', 'feature', 7), 'refs/heads/feature');
  });
});
