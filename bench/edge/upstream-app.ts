/**
 * The "server app" behind every proxy of bench/edge: plain node:http answering a 10,240-byte
 * body held in memory. `/cacheable` says `Cache-Control: public, s-maxage=3600` (the edge's web
 * cache may keep it); `/asset.css` answers with the fields the edge's static asset answer has (its
 * validators of the same length, lower-case names as the edge writes them) and `/hit-fields` with the
 * fields of the edge's web-cache hit of `/cacheable`, so that node:http answering the very bytes the edge
 * writes is measured too; every other path says `no-store`, so it is never cached anywhere.
 *
 *   node --import tsx bench/edge/upstream-app.ts <body bytes>
 */
import { createServer } from 'node:http';
import { listenOnLoopback, serveChild } from './serve-child.js';

serveChild('upstream-app.ts', async () => {
  const size = Number(process.argv[2] ?? '10240');
  if (!Number.isSafeInteger(size) || size <= 0) throw new Error('usage: upstream-app.ts <body bytes>');
  // Text, so a body is recognisable in a capture; the same bytes for every answer.
  const body = Buffer.alloc(size, 'upstream body 0123456789 abcdefghijklmnopqrstuvwxyz\n');
  const length = String(body.length);
  // As StaticSite#serveKnown writes them (src/edge/static-site.ts): a flat list with lower-case names.
  const staticFields = [
    'content-type',
    'text/css; charset=utf-8',
    'accept-ranges',
    'bytes',
    'etag',
    '"f_5M5tEKQKDANDsZMrTFY2"',
    'last-modified',
    new Date(0).toUTCString(),
    'cache-control',
    'public, max-age=0, must-revalidate',
    'content-length',
    length,
  ];
  // As the edge answers a web-cache hit of /cacheable (hitHeaderList in src/edge/web-cache.ts): the fields the app
  // sent, then Age and X-Cache.
  const hitFields = [
    'content-type',
    'text/plain; charset=utf-8',
    'content-length',
    length,
    'cache-control',
    'public, s-maxage=3600',
    // The app's own Date, kept with the answer (node then writes none of its own).
    'date',
    new Date(0).toUTCString(),
    'age',
    '0',
    'x-cache',
    'HIT',
  ];
  const server = createServer((req, res) => {
    if (req.url === '/asset.css') {
      res.writeHead(200, staticFields);
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (req.url === '/hit-fields') {
      res.writeHead(200, hitFields);
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const cacheable = req.url === '/cacheable';
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': length,
      'cache-control': cacheable ? 'public, s-maxage=3600' : 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return listenOnLoopback(server);
});
