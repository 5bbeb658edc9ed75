/**
 * The Node-level limit of bench/edge: node:http in front of an undici `Pool` of 64 connections to
 * the upstream app, streaming the answer back with `pipe` (docs/benchmarks.md, "undici proxy"). It does what any
 * proxy must (drop hop-by-hop fields both ways, pass status, headers and body, tear down the other
 * side on an error) and nothing else: no routing, no cache, no forwarded-for headers, no accounting.
 *
 *   node --import tsx bench/edge/bare-proxy.ts <upstream port>
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { listenOnLoopback, serveChild } from './serve-child.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

serveChild('bare-proxy.ts', async () => {
  const upstreamPort = Number(process.argv[2]);
  if (!Number.isInteger(upstreamPort) || upstreamPort <= 0) throw new Error('usage: bare-proxy.ts <port>');
  const pool = new Pool(`http://127.0.0.1:${String(upstreamPort)}`, {
    connections: 64,
    keepAliveTimeout: 60_000,
  });
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    pool
      .request({
        method,
        path: req.url ?? '/',
        headers: endToEnd(req.headers),
        body: method === 'GET' || method === 'HEAD' ? null : req,
      })
      .then(
        (upstream) => {
          res.writeHead(upstream.statusCode, endToEnd(upstream.headers));
          // pipe() and two listeners, not stream/promises' pipeline(): on Node 20 that one builds an
          // AbortController per call and aborts it (a DOMException with a stack trace) when done,
          // which about doubled this proxy's CPU per request here.
          upstream.body.once('error', () => res.destroy());
          res.once('close', () => {
            if (!upstream.body.readableEnded) upstream.body.destroy();
          });
          upstream.body.pipe(res);
        },
        () => {
          res.writeHead(502).end();
        },
      );
  });
  const listening = await listenOnLoopback(server);
  return {
    port: listening.port,
    close: async () => {
      await listening.close();
      await pool.close();
    },
  };
});
