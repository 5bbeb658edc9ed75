/** The built portal served at `/` with its caching and CSP, when a build of it exists. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiInstance } from '../api-instance.js';

/** Built files under assets/ carry a content hash in their names: a new build has new names. */
const HASHED = 'public, max-age=31536000, immutable';
/** Everything else (index.html) is asked for again each time, so a new build shows at once. */
const UNHASHED = 'no-cache';
/** Paths of the APIs and the served docs: never the portal's pages. */
const NOT_PAGES = /^\/(v1|fu|wh|docs|site-reports|healthz|readyz)(\/|$|\?)/;
/** The portal's own scripts and styles; its API calls go to the same origin. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export interface Portal {
  /** Whether a request that matched no route is a page of the portal (its index.html answers it). */
  isPage(request: FastifyRequest): boolean;
  sendPage(reply: FastifyReply): FastifyReply;
}

/**
 * The portal (web/, built to dist/web) at `/`: its files with long-lived caching for hashed
 * assets, and index.html for its own paths (the page routes in the browser). Without a build
 * (`npm run build` makes one) there is no portal and nothing is registered.
 */
export async function registerPortalRoutes(app: ApiInstance, portalDir: string): Promise<Portal | undefined> {
  if (!existsSync(join(portalDir, 'index.html'))) return undefined;
  await app.register(fastifyStatic, {
    root: portalDir,
    prefix: '/',
    // One route per built file, found at start: unknown paths stay with each API's own 404.
    wildcard: false,
    index: ['index.html'],
    serveDotFiles: false,
    // Cache-Control is set per file below (hashed assets for a year, the rest fresh).
    cacheControl: false,
    setHeaders: (res, path) => {
      res.setHeader('cache-control', path.startsWith(join(portalDir, 'assets')) ? HASHED : UNHASHED);
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
  return {
    isPage: (request) =>
      (request.method === 'GET' || request.method === 'HEAD') &&
      !NOT_PAGES.test(request.url) &&
      (request.headers.accept ?? '').includes('text/html'),
    sendPage: (reply) =>
      reply.header('cache-control', UNHASHED).header('content-security-policy', CSP).sendFile('index.html'),
  };
}
