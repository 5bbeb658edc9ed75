/**
 * A Next.js build with `output: 'standalone'`, made ready to run as Next's deployment docs say:
 * `.next/standalone/server.js` serves `public/` and `.next/static/` only from beside itself, and
 * carries the dependencies it traced, so the artifact needs neither the app's node_modules nor the
 * build's own cache.
 */

/**
 * Run by Node.js in the build's sandbox, as the build's uid, in the app's folder: copies the two
 * folders beside the server. Links are copied as links (never followed), times kept (Next.js
 * answers Last-Modified and ETag from them).
 */
export const PLACE_STANDALONE_ASSETS = [
  "const { cpSync, existsSync } = require('node:fs');",
  'const options = { recursive: true, force: true, verbatimSymlinks: true, preserveTimestamps: true };',
  "cpSync('.next/static', '.next/standalone/.next/static', options);",
  "if (existsSync('public')) cpSync('public', '.next/standalone/public', options);",
].join('\n');

/**
 * What a standalone build's artifact leaves out, relative to the packed folder (tar's anchored
 * `--exclude` patterns): the install, which the server does not load, and the build cache, which
 * the environment's build cache keeps for the next build.
 */
export const STANDALONE_ARTIFACT_EXCLUDES: readonly string[] = ['./node_modules', './.next/cache'];
