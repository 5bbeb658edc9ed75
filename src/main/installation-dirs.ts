/**
 * Folders the installation ships beside the code (docs, the built portal), found from this file's own place.
 */
import { fileURLToPath } from 'node:url';

/** The installation's docs/ folder (beside src/ and dist/), served at /docs. */
export const DOCS_DIR = fileURLToPath(new URL('../../docs', import.meta.url));

/** The built portal (dist/web, made by `npm run build`), served at `/`. */
export const PORTAL_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));
