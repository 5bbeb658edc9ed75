/**
 * The small static site `bench:deploy` uploads again and again, with a marker that tells its versions
 * apart.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The kinds of asset a small static site is made of, cycled through. */
const ASSETS: readonly { readonly ext: string; readonly body: (i: number) => string }[] = [
  { ext: 'css', body: (i) => `.block-${i} { margin: ${i}px; color: #${hex(3)}; }\n`.repeat(40) },
  { ext: 'js', body: (i) => `export const value${i} = '${hex(16)}';\nconsole.log(value${i});\n`.repeat(30) },
  {
    ext: 'svg',
    body: (i) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">${`<circle cx="${i}" cy="32" r="${i % 30}" fill="#${hex(3)}"/>`.repeat(20)}</svg>\n`,
  },
  {
    ext: 'json',
    body: (i) => `${JSON.stringify({ page: i, items: Array.from({ length: 40 }, () => hex(8)) })}\n`,
  },
  { ext: 'txt', body: (i) => `line ${i}: ${hex(24)}\n`.repeat(40) },
];

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Writes a small static site into `dir`: an index.html and `files - 1` assets of 0.8 to 2.4 KiB under
 * assets/ (CSS, JS, SVG, JSON, text), no package.json, so the platform serves the folder as it is.
 * Answers the assets' paths, relative to `dir`.
 */
export function writeStaticSite(dir: string, files: number): string[] {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  const assets: string[] = [];
  for (let i = 1; i < files; i++) {
    const kind = ASSETS[(i - 1) % ASSETS.length];
    if (kind === undefined) throw new Error('no asset kinds');
    const path = `assets/file-${String(i).padStart(3, '0')}.${kind.ext}`;
    writeFileSync(join(dir, path), kind.body(i));
    assets.push(path);
  }
  writeIndex(dir, 'initial', assets);
  return assets;
}

/** Rewrites index.html with `marker` in it: what tells one deployed version from the others. */
export function writeIndex(dir: string, marker: string, assets: readonly string[]): void {
  const links = assets
    .map((path) =>
      path.endsWith('.css')
        ? `<link rel="stylesheet" href="/${path}">`
        : path.endsWith('.js')
          ? `<script type="module" src="/${path}"></script>`
          : `<a href="/${path}">${path}</a>`,
    )
    .join('\n');
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html>\n<title>Deploy benchmark</title>\n<h1>Deploy benchmark</h1>\n<p id="version">${marker}</p>\n${links}\n`,
  );
}

/** The bytes of all files under `dir`. */
export function siteBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => statSync(join(dir, path)))
    .filter((stats) => stats.isFile())
    .reduce((sum, stats) => sum + stats.size, 0);
}
