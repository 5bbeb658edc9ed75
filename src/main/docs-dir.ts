import { fileURLToPath } from 'node:url';

/** The installation's docs/ folder (beside src/ and dist/), served at /docs. */
export const DOCS_DIR = fileURLToPath(new URL('../../docs', import.meta.url));
