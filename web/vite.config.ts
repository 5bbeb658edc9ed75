/** The portal's build: how vite turns web/ into the files the control plane serves. */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The portal, built to dist/web, which the control plane serves at `/`. Files under assets/
 * carry a content hash in their names, so they are cached for a year (src/http/routes/portal-routes.ts).
 * No React plugin: esbuild compiles TSX with the automatic runtime (the machine notes: vite 7 without
 * @vitejs/plugin-react).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    // The entry (React, Mantine, TanStack) is about 620 KB raw, 200 KB gzip; bench:portal holds it to
    // issue 24's 250 KB gzip, and every other page is already a chunk of its own.
    chunkSizeWarningLimit: 700,
    rollupOptions: {
      onwarn(warning, warn) {
        // Mantine's modules start with "use client" (for React Server Components), which a browser bundle ignores.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        // Its echo: dropping that directive leaves a library's source map pointing nowhere for line 1.
        if (warning.code === 'SOURCEMAP_ERROR' && (warning.id ?? '').includes('/node_modules/')) return;
        warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
