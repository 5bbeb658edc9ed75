/**
 * Google Fonts for builds on a machine that cannot reach them. create-next-app's layout loads Geist with
 * next/font/google, which fetches fonts.googleapis.com during `next build`; a CI machine without that host
 * (only the npm registry reachable) would fail every Next.js starter for a reason that is not Atoll's. There,
 * and only there, the suite gives the build Next's own test hook, NEXT_FONT_GOOGLE_MOCKED_RESPONSES: a module
 * of the stylesheets Google would answer, in a folder the build sandbox can read (the environment's npm
 * store, mounted at the same path). The starters stay unmodified; with Google reachable nothing is set.
 */
import { lookup } from 'node:dns/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const GOOGLE_FONTS_HOST = 'fonts.googleapis.com';

/** The stylesheet URLs create-next-app's Geist and Geist Mono request (weights as a variable font). */
const STYLESHEETS: Readonly<Record<string, string>> = {
  'https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap': fontFace('Geist', 'geist'),
  'https://fonts.googleapis.com/css2?family=Geist+Mono:wght@100..900&display=swap': fontFace(
    'Geist Mono',
    'geistmono',
  ),
};

/** An @font-face as Google answers it; next/font's stand-in mode gives a font file's URL back as its bytes. */
function fontFace(family: string, slug: string): string {
  return `/* latin */
@font-face {
  font-family: '${family}';
  font-style: normal;
  font-weight: 100 900;
  font-display: swap;
  src: url(https://fonts.gstatic.com/s/${slug}/v1/${slug}-latin.woff2) format('woff2');
  unicode-range: U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD;
}
`;
}

export async function googleFontsReachable(): Promise<boolean> {
  try {
    await lookup(GOOGLE_FONTS_HOST);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the stand-in module into the environment's npm store and answers the shell variable that points
 * Next.js at it.
 */
export async function writeGoogleFontsStandIn(
  dataDir: string,
  envId: string,
): Promise<{ key: string; value: string }> {
  const folder = join(dataDir, 'cache', 'environments', envId, 'npm', '_atoll-test');
  await mkdir(folder, { recursive: true, mode: 0o755 });
  const file = join(folder, 'google-fonts-responses.cjs');
  await writeFile(file, `module.exports = ${JSON.stringify(STYLESHEETS, null, 2)};\n`, { mode: 0o644 });
  return { key: 'NEXT_FONT_GOOGLE_MOCKED_RESPONSES', value: file };
}
