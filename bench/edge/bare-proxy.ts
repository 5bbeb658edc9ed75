/**
 * The Node-level limit of bench/edge: node:http in front of the upstream app, doing what any proxy
 * must (drop hop-by-hop fields both ways, pass status, headers and body, tear down the other side on
 * an error) and nothing else: no routing, no cache, no forwarded-for headers, no accounting. One of
 * four techniques for the hop (docs/benchmarks.md, "Edge"), to find the fastest a Node proxy can be:
 *
 *   dispatch  undici `Pool.dispatch` with a handler that writes each chunk to the visitor's response
 *             (no Readable body, no promise): the fastest here, and what the edge itself does
 *   stream    undici `Pool.stream`, the visitor's response as the Writable the body goes to
 *   request   undici `Pool.request`, the body streamed back with `pipe()` (the edge before issue 26)
 *   http      `node:http.request` through a keep-alive `Agent`, the answer streamed with `pipe()`
 *
 *   node --import tsx bench/edge/bare-proxy.ts <upstream port> [dispatch|stream|request|http]
 */
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { listenOnLoopback, serveChild } from './serve-child.js';

const BARE_PROXY_MODES = ['dispatch', 'stream', 'request', 'http'] as const;
type BareProxyMode = (typeof BARE_PROXY_MODES)[number];

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

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

/** Raw name, value… pairs (as undici's onHeaders gives them) minus hop-by-hop fields, for res.writeHead. */
function endToEndRaw(raw: readonly Buffer[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString('latin1');
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, (raw[i + 1] as Buffer).toString('latin1'));
  }
  return out;
}

function bodyOf(req: IncomingMessage): IncomingMessage | null {
  return req.method === 'GET' || req.method === 'HEAD' ? null : req;
}

function uncork(res: ServerResponse): void {
  res.uncork();
}

/** Each chunk straight to the visitor; backpressure by pausing the upstream until the response drains. */
class ForwardingHandler implements Dispatcher.DispatchHandler {
  #resume: (() => void) | undefined;

  constructor(readonly res: ServerResponse) {}

  onConnect(abort: (error?: Error) => void): void {
    this.res.once('close', () => {
      if (!this.res.writableFinished) abort();
    });
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    this.#resume = resume;
    this.res.writeHead(statusCode, endToEndRaw(headers));
    // Corked until the end of this tick: the header block goes out with the body chunks that came
    // with it in one write (node:http would otherwise write it on its own first).
    this.res.cork();
    process.nextTick(uncork, this.res);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.res.write(chunk)) return true;
    this.res.once('drain', () => this.#resume?.());
    return false;
  }

  onComplete(): void {
    this.res.end();
  }

  onError(): void {
    if (this.res.headersSent) this.res.destroy();
    else this.res.writeHead(502).end();
  }
}

function proxyWith(mode: BareProxyMode, upstreamPort: number) {
  const origin = `http://127.0.0.1:${String(upstreamPort)}`;
  const pool = new Pool(origin, { connections: 64, keepAliveTimeout: 60_000 });
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 64, keepAliveMsecs: 60_000 });
  const handlers: Record<BareProxyMode, (req: IncomingMessage, res: ServerResponse) => void> = {
    dispatch: (req, res) => {
      pool.dispatch(
        {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: endToEnd(req.headers),
          body: bodyOf(req),
        },
        new ForwardingHandler(res),
      );
    },
    stream: (req, res) => {
      pool
        .stream(
          {
            method: req.method ?? 'GET',
            path: req.url ?? '/',
            headers: endToEnd(req.headers),
            body: bodyOf(req),
          },
          ({ statusCode, headers }) => {
            res.writeHead(statusCode, endToEnd(headers));
            return res;
          },
        )
        .catch(() => {
          if (res.headersSent) res.destroy();
          else res.writeHead(502).end();
        });
    },
    request: (req, res) => {
      pool
        .request({
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: endToEnd(req.headers),
          body: bodyOf(req),
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
    },
    http: (req, res) => {
      const out = httpRequest(
        {
          host: '127.0.0.1',
          port: upstreamPort,
          method: req.method,
          path: req.url,
          headers: endToEnd(req.headers),
          agent,
        },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 502, endToEnd(upstream.headers));
          upstream.once('error', () => res.destroy());
          upstream.pipe(res);
        },
      );
      out.once('error', () => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502).end();
      });
      res.once('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      if (bodyOf(req) === null) out.end();
      else req.pipe(out);
    },
  };
  return {
    handle: handlers[mode],
    close: async () => {
      agent.destroy();
      await pool.close();
    },
  };
}

serveChild('bare-proxy.ts', async () => {
  const upstreamPort = Number(process.argv[2]);
  const mode = (process.argv[3] ?? 'dispatch') as BareProxyMode;
  if (!Number.isInteger(upstreamPort) || upstreamPort <= 0 || !BARE_PROXY_MODES.includes(mode))
    throw new Error(`usage: bare-proxy.ts <port> [${BARE_PROXY_MODES.join('|')}]`);
  const proxy = proxyWith(mode, upstreamPort);
  const server = createServer(proxy.handle);
  const listening = await listenOnLoopback(server);
  return {
    port: listening.port,
    close: async () => {
      await listening.close();
      await proxy.close();
    },
  };
});
