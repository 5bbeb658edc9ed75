/**
 * Google Fonts for the Next.js starters on a machine that cannot reach it. create-next-app's layout loads Geist
 * with next/font/google, which fetches fonts.googleapis.com during `next build`; without it every Next.js
 * starter would fail for a reason that is not Atoll's. Next's own test hook NEXT_FONT_GOOGLE_MOCKED_RESPONSES
 * then answers the stylesheet requests instead: a CommonJS module mapping each stylesheet URL to the CSS Google
 * would send. The suite adds that module to the uploaded zip beside the starter (test setup; the starter's own
 * files are unchanged) and sets the variable on the environment, relative to the app folder, where
 * `next build` runs.
 */
import { lookup } from 'node:dns/promises';

export async function googleFontsReachable(): Promise<boolean> {
  try {
    await lookup('fonts.googleapis.com');
    return true;
  } catch {
    return false;
  }
}

/** Name of the mock module in the uploaded app folder. */
export const GOOGLE_FONTS_MOCK_FILE = 'next-font-google-mocked-responses.cjs';

/**
 * The environment's shell variable pointing next/font/google at the mock. Relative to the app folder:
 * Turbopack reads the module from a file system rooted at the module's folder, `.` being the folder
 * `next build` runs in.
 */
export const GOOGLE_FONTS_MOCK_VARIABLE = {
  key: 'NEXT_FONT_GOOGLE_MOCKED_RESPONSES',
  value: `./${GOOGLE_FONTS_MOCK_FILE}`,
} as const;

/**
 * One @font-face per font of the starters (Geist and Geist Mono, latin, variable weight). The sources are
 * local() fonts, not url(): Turbopack downloads every url() font file of the stylesheet even in mocked mode,
 * and fails the build when it cannot ("Can't resolve '@vercel/turbopack-next/internal/font/google/font'").
 */
function fontFace(family: string, local: string): string {
  return [
    '/* latin */',
    '@font-face {',
    `  font-family: '${family}';`,
    '  font-style: normal;',
    '  font-weight: 100 900;',
    '  font-display: swap;',
    `  src: local('${local}');`,
    '}',
    '',
  ].join('\n');
}

const STYLESHEETS: Record<string, string> = {
  'https://fonts.googleapis.com/css2?family=Geist:wght@100..900&display=swap': fontFace('Geist', 'Arial'),
  'https://fonts.googleapis.com/css2?family=Geist+Mono:wght@100..900&display=swap': fontFace(
    'Geist Mono',
    'Courier New',
  ),
};

/** The mock module's text: `module.exports = { <stylesheet URL>: <CSS> }`. */
export const GOOGLE_FONTS_MOCK = `module.exports = ${JSON.stringify(STYLESHEETS, null, 2)};\n`;
