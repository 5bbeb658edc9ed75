/**
 * Builds the `atoll` binary into dist/main: src/main/atoll.ts and the edge worker's program, each bundled with
 * the modules and packages it imports (esbuild). Node 20 loaded the platform's modules one file at a time (322 of
 * our own from tsc, hundreds more of the packages'): about half of `atoll serve`'s start, and bundled the start
 * takes a third less (docs/benchmarks.md, "Where start time goes"). What a command loads only when it needs it
 * (serve's platform, doctor) stays a chunk of its own.
 *
 * Every chunk is written to dist/main, two folders below the installation as every src/<folder>/ module is: the
 * files they find with `new URL('../../…', import.meta.url)` (assets/, docs/, dist/web, package.json) resolve as
 * they do from the source under tsx.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = new URL('../', import.meta.url);

// Stays as npm installed it, imported from node_modules at run time:
const EXTERNAL = [
  // reads its WebAssembly and data files beside its own module
  '@electric-sql/pglite',
  // reads its fonts beside its own module
  'pdfkit',
  // pg's optional native binding, not installed
  'pg-native',
  // loaded only when a command or a setting needs them (S3, ACME, SMTP, a terminal's prompts)
  '@aws-sdk/*',
  'acme-client',
  'nodemailer',
  '@inquirer/*',
];

// A bundled CommonJS package calls require: ES modules have none of their own.
const REQUIRE = `import { createRequire as __atollRequire } from 'node:module'; const require = __atollRequire(import.meta.url);`;

// dist/ holds only what this build and the portal's (vite, into dist/web) write: files of an older build go.
rmSync(new URL('dist', ROOT), { recursive: true, force: true });
await build({
  // A path, not the URL's pathname: a folder with a space in its name stays as it is, not %20.
  absWorkingDir: fileURLToPath(ROOT),
  entryPoints: ['src/main/atoll.ts', 'src/main/edge-worker-process.ts'],
  outdir: 'dist/main',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: REQUIRE },
  // Class and function names stay what the source says: errors and logs name them.
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
