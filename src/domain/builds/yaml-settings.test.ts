import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readYamlSettings } from './yaml-settings.js';

describe('readYamlSettings', () => {
  it('reads plain values, block lists and flow lists, without quotes and comments', () => {
    const settings = readYamlSettings(
      [
        '# a comment',
        'nodeLinker: node-modules # the linker',
        "yarnPath: '.yarn/releases/yarn-4.5.0.cjs'",
        'packages:',
        "  - 'apps/*'",
        '  - "packages/**"',
        '- tools/*',
        'onlyBuiltDependencies: [esbuild, "sharp"]',
        '',
      ].join('\n'),
    );
    assert.equal(settings.get('nodeLinker'), 'node-modules');
    assert.equal(settings.get('yarnPath'), '.yarn/releases/yarn-4.5.0.cjs');
    assert.deepEqual(settings.get('packages'), ['apps/*', 'packages/**', 'tools/*']);
    assert.deepEqual(settings.get('onlyBuiltDependencies'), ['esbuild', 'sharp']);
  });

  it('leaves nested maps out instead of guessing, and reads on after them', () => {
    const settings = readYamlSettings(
      'packageExtensions:\n  "foo@*":\n    dependencies:\n      bar: "*"\nnodeLinker: node-modules\r\n',
    );
    assert.equal(settings.has('packageExtensions'), false);
    assert.equal(settings.has('bar'), false);
    assert.equal(settings.get('nodeLinker'), 'node-modules');
  });
});
