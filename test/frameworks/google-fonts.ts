/**
 * Whether this machine reaches Google Fonts. create-next-app's layout loads Geist with next/font/google, which
 * fetches fonts.googleapis.com during `next build`: a machine that only reaches the npm registry fails every
 * Next.js starter for a reason that is not Atoll's. (Next's test hook NEXT_FONT_GOOGLE_MOCKED_RESPONSES was
 * tried: Turbopack's production build then fails to resolve its own font module.)
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

export const NO_GOOGLE_FONTS =
  'this machine cannot resolve fonts.googleapis.com, which next/font/google in the starter needs at build time (not an Atoll defect; runs where Google Fonts is reachable)';
