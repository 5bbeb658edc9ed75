import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  findWorkspaceRoot,
  foldersAbove,
  isWorkspaceMember,
  parseAppDirectoryMarker,
  workspacePatterns,
} from './workspace-rules.js';

describe('workspacePatterns', () => {
  it('reads npm and Yarn workspaces (array or { packages }) and pnpm-workspace.yaml', () => {
    const folder = '';
    assert.deepEqual(
      workspacePatterns({ folder, packageJson: '{"workspaces":["apps/*"]}', pnpmWorkspace: undefined }),
      ['apps/*'],
    );
    assert.deepEqual(
      workspacePatterns({
        folder,
        packageJson: '{"workspaces":{"packages":["packages/*"],"nohoist":["**/x"]}}',
        pnpmWorkspace: undefined,
      }),
      ['packages/*'],
    );
    assert.deepEqual(
      workspacePatterns({ folder, packageJson: '{}', pnpmWorkspace: "packages:\n  - 'apps/*'\n" }),
      ['apps/*'],
    );
    assert.equal(
      workspacePatterns({ folder, packageJson: '{"name":"x"}', pnpmWorkspace: undefined }),
      undefined,
    );
    assert.equal(workspacePatterns({ folder, packageJson: 'not json', pnpmWorkspace: undefined }), undefined);
  });
});

describe('isWorkspaceMember', () => {
  it('matches *, ** and literal patterns, and honours negations', () => {
    assert.equal(isWorkspaceMember(['apps/*'], 'apps/web'), true);
    assert.equal(isWorkspaceMember(['./apps/*'], 'apps/web'), true);
    assert.equal(isWorkspaceMember(['apps/*'], 'apps/web/nested'), false);
    assert.equal(isWorkspaceMember(['apps/**'], 'apps/web/nested'), true);
    assert.equal(isWorkspaceMember(['apps/web'], 'apps/web'), true);
    assert.equal(isWorkspaceMember(['apps/site-*'], 'apps/site-1'), true);
    assert.equal(isWorkspaceMember(['apps/site-*'], 'apps/web'), false);
    assert.equal(isWorkspaceMember(['apps/*', '!apps/legacy'], 'apps/legacy'), false);
    assert.equal(isWorkspaceMember(['apps/*'], 'apps'), false);
    assert.equal(isWorkspaceMember(['apps/*'], 'apps/.hidden'), false);
  });
});

describe('findWorkspaceRoot', () => {
  it('finds the nearest folder above the app whose workspaces include it', () => {
    const root = findWorkspaceRoot('repo/apps/web', [
      { folder: 'repo/apps', packageJson: undefined, pnpmWorkspace: undefined },
      { folder: 'repo', packageJson: '{"workspaces":["apps/*"]}', pnpmWorkspace: undefined },
    ]);
    assert.deepEqual(root, { folder: 'repo', appDirectory: 'apps/web', declaredBy: 'package.json' });
    assert.deepEqual(
      findWorkspaceRoot('apps/web', [
        { folder: '', packageJson: undefined, pnpmWorkspace: 'packages: [apps/*]' },
      ]),
      { folder: '', appDirectory: 'apps/web', declaredBy: 'pnpm-workspace.yaml' },
    );
  });

  it('finds none when no folder above declares the app a member', () => {
    assert.equal(
      findWorkspaceRoot('repo/tools/site', [
        { folder: 'repo/tools', packageJson: '{}', pnpmWorkspace: undefined },
        { folder: 'repo', packageJson: '{"workspaces":["apps/*"]}', pnpmWorkspace: undefined },
      ]),
      undefined,
    );
  });
});

describe('foldersAbove', () => {
  it('lists the folders above the app, nearest first, down to the base', () => {
    assert.deepEqual(foldersAbove('repo/apps/web', 'repo'), ['repo/apps', 'repo']);
    assert.deepEqual(foldersAbove('apps/web', ''), ['apps', '']);
    assert.deepEqual(foldersAbove('repo', 'repo'), []);
  });
});

describe('parseAppDirectoryMarker', () => {
  it('accepts a relative folder path', () => {
    assert.equal(parseAppDirectoryMarker('apps/web\n'), 'apps/web');
  });

  it('refuses what could leave the deployment folder (regression: a marker serving files outside the app)', () => {
    for (const text of [
      '',
      '/etc',
      '../x',
      'apps/../../x',
      'apps//web',
      './apps',
      'a\\b',
      'a\u0000b',
      'x'.repeat(2000),
    ])
      assert.equal(parseAppDirectoryMarker(text), undefined, JSON.stringify(text));
  });
});
