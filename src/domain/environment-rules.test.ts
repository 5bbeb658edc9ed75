import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DISPLAY_NAME_MAX,
  ROOT_DIRECTORY_MAX,
  UPLOADABLE_BRANCH,
  checkDisplayName,
  checkGitBranch,
  checkGitDepth,
  checkPreviews,
  checkRootDirectory,
  checkUploadableBranch,
  checkWpEnvironment,
  normaliseRootDirectory,
} from './environment-rules.js';

describe('checkDisplayName', () => {
  it('accepts ordinary names up to 100 characters', () => {
    assert.equal(DISPLAY_NAME_MAX, 100);
    for (const value of ['Production', 'a', 'Staging – EU 🚀', 'x'.repeat(100)]) {
      assert.deepEqual(checkDisplayName('displayName', value), [], value);
    }
  });

  it('refuses empty, blank, too long and control characters, naming the field', () => {
    for (const value of ['', '   ', '\t', 'x'.repeat(101), 'a\nb', 'a\u0000b', 'tab\there', 'del\u007f']) {
      const violations = checkDisplayName('displayName', value);
      assert.equal(violations.length, 1, JSON.stringify(value));
      assert.equal(violations[0]?.field, 'displayName');
      assert.match(violations[0].description, /1 to 100 characters/);
    }
  });
});

describe('checkWpEnvironment', () => {
  it('accepts empty and DNS labels of 1 to 63 characters', () => {
    for (const value of ['', 'a', '0', 'my-site', 'site2', 'a'.repeat(63), `a${'-'.repeat(61)}b`]) {
      assert.deepEqual(checkWpEnvironment('wpEnvironment', value), [], value);
    }
  });

  it('refuses uppercase, leading or trailing hyphens, dots, underscores and 64 characters', () => {
    for (const value of ['MySite', '-site', 'site-', 'my.site', 'my_site', 'a'.repeat(64), ' ', 'sité']) {
      const violations = checkWpEnvironment('wpEnvironment', value);
      assert.equal(violations.length, 1, value);
      assert.equal(violations[0]?.field, 'wpEnvironment');
    }
  });
});

describe('checkUploadableBranch', () => {
  it('accepts only "uploadable"', () => {
    assert.equal(UPLOADABLE_BRANCH, 'uploadable');
    assert.deepEqual(checkUploadableBranch('branch', 'uploadable'), []);
    for (const value of ['main', '', 'Uploadable', 'uploadable ']) {
      assert.deepEqual(checkUploadableBranch('branch', value), [
        { field: 'branch', description: 'must be "uploadable" for a direct-upload application' },
      ]);
    }
  });
});

describe('checkRootDirectory', () => {
  it('accepts empty (the root) and relative folder paths', () => {
    for (const value of [
      '',
      'app',
      'apps/web',
      'packages/site-1/dist',
      '@scope/pkg',
      'v1.2',
      '...',
      '.hidden',
    ]) {
      assert.deepEqual(checkRootDirectory('rootDirectory', value), [], value);
    }
  });

  it('accepts trailing slashes', () => {
    assert.deepEqual(checkRootDirectory('rootDirectory', 'apps/web/'), []);
    assert.deepEqual(checkRootDirectory('rootDirectory', 'apps//'), []);
  });

  it('refuses ".." and "." segments anywhere', () => {
    for (const value of ['..', '../x', 'a/../b', 'a/..', '.', './a', 'a/./b', 'a/../../etc']) {
      const violations = checkRootDirectory('rootDirectory', value);
      assert.equal(violations.length, 1, value);
      assert.equal(violations[0]?.field, 'rootDirectory');
      assert.match(violations[0].description, /"\.\."/);
    }
  });

  it('refuses absolute paths', () => {
    for (const value of ['/', '/etc', '/app/web', '//x']) {
      assert.equal(checkRootDirectory('rootDirectory', value).length, 1, value);
    }
  });

  it('refuses empty segments, backslashes, spaces and other unsafe characters', () => {
    for (const value of ['a//b', 'a\\b', '..\\x', 'has space', 'a/b c', 'C:', 'a\0b', '~user', '$HOME']) {
      assert.equal(checkRootDirectory('rootDirectory', value).length, 1, value);
    }
  });

  it('accepts 255 characters and refuses 256', () => {
    assert.equal(ROOT_DIRECTORY_MAX, 255);
    assert.deepEqual(checkRootDirectory('rootDirectory', 'a'.repeat(255)), []);
    assert.equal(checkRootDirectory('rootDirectory', 'a'.repeat(256)).length, 1);
  });
});

describe('normaliseRootDirectory', () => {
  it('strips trailing slashes and nothing else', () => {
    assert.equal(normaliseRootDirectory('apps/web/'), 'apps/web');
    assert.equal(normaliseRootDirectory('apps/web///'), 'apps/web');
    assert.equal(normaliseRootDirectory('apps/web'), 'apps/web');
    assert.equal(normaliseRootDirectory(''), '');
  });
});

describe('checkGitBranch', () => {
  it('accepts the branch names teams use', () => {
    for (const branch of ['main', 'feature/login-page', 'release-2.1', 'renovate/next-16.x', 'v1.0_hotfix'])
      assert.deepEqual(checkGitBranch('branch', branch), [], branch);
  });

  it('refuses uploadable, and names git or a shell would read otherwise (prevents option and range injection)', () => {
    for (const branch of [
      'uploadable',
      '',
      '-upload-pack=touch',
      '--orphan',
      'a..b',
      'main~1',
      'main^',
      'HEAD@{1}',
      'a b',
      'a:b',
      'feature/',
      '/main',
      'main.lock',
      '.hidden',
      'feature/.x',
      'a//b',
      'x'.repeat(256),
      'tab\there',
    ])
      assert.equal(checkGitBranch('branch', branch).length, 1, branch);
  });
});

describe('checkPreviews', () => {
  const on = { enabled: true, allowForks: false };
  it('allows previews of a repository application’s own environments', () => {
    assert.deepEqual(checkPreviews('previews', on, { repositoryApp: true, isPreview: false }), []);
    assert.deepEqual(
      checkPreviews(
        'previews',
        { enabled: false, allowForks: false },
        { repositoryApp: false, isPreview: false },
      ),
      [],
    );
  });
  it('refuses previews without a repository, and of a preview', () => {
    assert.match(
      checkPreviews('previews', on, { repositoryApp: false, isPreview: false })[0]?.description ?? '',
      /connected to a repository/,
    );
    assert.match(
      checkPreviews(
        'previews.allowForks',
        { enabled: false, allowForks: true },
        { repositoryApp: true, isPreview: true },
      )[0]?.description ?? '',
      /previews have no previews/,
    );
  });
});

describe('checkGitDepth', () => {
  it('takes 0 (all history) or a number of commits, on a repository application', () => {
    assert.deepEqual(checkGitDepth('gitDepth', 0, true), []);
    assert.deepEqual(checkGitDepth('gitDepth', 50, true), []);
    assert.deepEqual(checkGitDepth('gitDepth', 1, false), []);
    assert.equal(checkGitDepth('gitDepth', -1, true).length, 1);
    assert.equal(checkGitDepth('gitDepth', 1.5, true).length, 1);
    assert.match(checkGitDepth('gitDepth', 0, false)[0]?.description ?? '', /connected to a repository/);
  });
});
