import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { systemClock } from '../adapters/system-clock.js';
import { Edge, type RequestRecord } from './edge-server.js';
import { findFreePort } from '../sandbox/free-port.js';

const BASE = 'edge.test';
const warnings: object[] = [];
/** Requests the app got, by path (the coalescing tests). */
const asked = new Map<string, number>();
/** Settled when the app's /trickle answer is closed (the visitor left and the edge let go of it). */
let trickleClosedNow: () => void = () => undefined;
const trickleClosed = new Promise<void>((resolve) => (trickleClosedNow = resolve));

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

describe('the edge server', () => {
  let edge: Edge;
  let edgePort: number;
  let upstream: Server;
  let site: string;

  before(async () => {
    site = mkdtempSync(join(tmpdir(), 'atoll-edge-'));
    writeFileSync(join(site, 'index.html'), '<h1>static</h1>');
    upstream = createServer((req, res) => {
      const counted = /^\/counted\/(cacheable|private)/.exec(req.url ?? '');
      if (counted?.[1] !== undefined) {
        const kind = counted[1];
        asked.set(req.url ?? '', (asked.get(req.url ?? '') ?? 0) + 1);
        // Slow enough that all the visitors' requests arrive while the first is in flight.
        setTimeout(() => {
          res.writeHead(200, {
            'content-type': 'text/plain',
            'cache-control': kind === 'cacheable' ? 's-maxage=60' : 'private, no-store',
          });
          res.end(`answer ${String(asked.get(req.url ?? ''))}`);
        }, 200);
        return;
      }
      if (req.url === '/wait') {
        setTimeout(() => res.end('waited'), 150);
        return;
      }
      if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 2_000);
        return;
      }
      if (req.url === '/big') {
        // Far more than the sockets buffer: the edge must pause the app's side while the visitor's is full.
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 's-maxage=60' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(64 * 1024, i));
        res.end();
        return;
      }
      if (req.url === '/trickle') {
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 's-maxage=60' });
        res.write('first part\n');
        const more = setInterval(() => res.write('more\n'), 50);
        res.once('close', () => {
          clearInterval(more);
          trickleClosedNow();
        });
        return;
      }
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'text/plain' });
          res.end(`got ${String(Buffer.concat(chunks).length)} bytes`);
        });
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
      });
      res.end(JSON.stringify(req.headers));
    });
    const upstreamPort = await listen(upstream);
    edge = new Edge({
      baseDomain: BASE,
      trustedProxies: new Set(['127.0.0.1']),
      upstreamTimeoutMs: 300,
      upstreamConnections: 4,
      cacheBytesPerEnvironment: 1024 * 1024,
      cacheEntryMaxBytes: 64 * 1024,
      staticMemoryBytes: 1024 * 1024,
      clock: systemClock,
      logger: { info: () => undefined, warn: (obj) => warnings.push(obj), error: () => undefined },
    });
    edgePort = await listen(edge.server);
    edge.publish([
      { environmentId: 'app', buildId: 'b1', target: { kind: 'server', port: upstreamPort } },
      { environmentId: 'gone', buildId: 'b1', target: { kind: 'server', port: await findFreePort() } },
      { environmentId: 'restarting', buildId: 'b1', target: { kind: 'server', port: undefined } },
      { environmentId: 'site', buildId: 'b1', target: { kind: 'static', root: site } },
    ]);
  });
  after(async () => {
    edge.server.closeAllConnections();
    await new Promise((resolve) => edge.server.close(resolve));
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(site, { recursive: true, force: true });
  });

  const get = (env: string, path = '/', headers: Record<string, string> = {}) =>
    request(`http://127.0.0.1:${String(edgePort)}${path}`, {
      headers: { host: `h${env}.${BASE}`, ...headers },
    });

  it('has every visitor socket read its peer address as it connects, whatever its visitor asks for', async () => {
    // node keeps a socket's peer address in `_peername` from its first read: a static answer alone never reads it.
    const known: boolean[] = [];
    const onRequest = (req: { socket: object }) => known.push(Object.hasOwn(req.socket, '_peername'));
    edge.server.on('request', onRequest);
    try {
      const res = await get('site', '/index.html', { connection: 'close' });
      await res.body.text();
    } finally {
      edge.server.off('request', onRequest);
    }
    assert.deepEqual(known, [true]);
  });

  it('routes by Host (with or without port, any case) and answers an unknown host with 404', async () => {
    assert.equal((await get('site')).statusCode, 200);
    const upper = await request(`http://127.0.0.1:${String(edgePort)}/`, {
      headers: { host: `HSITE.${BASE.toUpperCase()}:8081` },
    });
    assert.equal(upper.statusCode, 200);
    assert.match(await upper.body.text(), /static/);
    const unknown = await get('nobody');
    assert.equal(unknown.statusCode, 404);
    await unknown.body.dump();
  });

  it('believes X-Forwarded-* only from trusted addresses, appending the client', async () => {
    const answer = await get('app', '/', {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'www.example.com',
    });
    const seen = (await answer.body.json()) as Record<string, string>;
    assert.equal(seen['x-forwarded-for'], '203.0.113.9, 127.0.0.1');
    assert.equal(seen['x-forwarded-proto'], 'https');
    assert.equal(seen['x-forwarded-host'], 'www.example.com');
  });

  it('strips hop-by-hop headers of the answer', async () => {
    const answer = await get('app');
    await answer.body.dump();
    // The edge's own keep-alive, not the app's: that one described the app's connection to the edge.
    assert.notEqual(answer.headers['keep-alive'], 'timeout=5');
  });

  it('answers 502 with an error id, also logged, when the app cannot be reached or is restarting', async () => {
    for (const env of ['gone', 'restarting']) {
      const answer = await get(env);
      assert.equal(answer.statusCode, 502);
      const id = String(answer.headers['x-atoll-error-id']);
      assert.match(id, /^[0-9a-f]{12}$/);
      assert.match(await answer.body.text(), new RegExp(`Error id: <code>${id}</code>`));
      assert.ok(warnings.some((w) => (w as { errorId?: string }).errorId === id));
    }
  });

  it('answers 504 with an error id when the app does not answer in time', async () => {
    const answer = await get('app', '/slow');
    assert.equal(answer.statusCode, 504);
    assert.match(String(answer.headers['x-atoll-error-id']), /^[0-9a-f]{12}$/);
    await answer.body.dump();
  });

  it('drains: a route replaced while a request is in flight resolves its drain only when the request ends', async () => {
    const started = Date.now();
    const inFlight = get('app', '/wait');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { port } = upstream.address() as AddressInfo;
    edge.publish([{ environmentId: 'app', buildId: 'b2', target: { kind: 'server', port } }]);
    await edge.drain('app', 'b1', 5_000);
    // The app answers 150 ms after the request came: the drain cannot have ended before.
    assert.ok(Date.now() - started >= 150);
    const answer = await inFlight;
    assert.equal(answer.statusCode, 200);
    assert.equal(await answer.body.text(), 'waited');
  });

  it('sends concurrent misses of one cacheable path to the app once; the others get its stored answer', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => get('app', '/counted/cacheable')));
    const bodies = await Promise.all(answers.map((answer) => answer.body.text()));
    assert.equal(asked.get('/counted/cacheable'), 1);
    assert.deepEqual(new Set(bodies), new Set(['answer 1']));
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      Array<number>(20).fill(200),
    );
    assert.equal(answers.filter((answer) => answer.headers['x-cache'] === 'MISS').length, 1);
  });

  it(
    'streams an answer far larger than the socket buffers whole, and keeps none over the entry bound',
    { timeout: 30_000 },
    async () => {
      for (const expected of ['MISS', 'MISS']) {
        const answer = await get('app', '/big');
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.headers['x-cache'], expected);
        const body = Buffer.from(await answer.body.arrayBuffer());
        assert.equal(body.length, 64 * 64 * 1024);
        for (let i = 0; i < 64; i++) assert.equal(body[i * 64 * 1024 + 1], i);
      }
    },
  );

  it("lets go of the app's answer when the visitor leaves in the middle of it (prevents held connections)", async () => {
    const answer = await get('app', '/trickle');
    assert.equal(answer.statusCode, 200);
    for await (const chunk of answer.body) {
      assert.match(String(chunk), /first part/);
      break;
    }
    // The for-await break destroyed the visitor's side; the app's answer must end too.
    await Promise.race([
      trickleClosed,
      new Promise((_, reject) =>
        setTimeout(() => {
          reject(new Error('the app answer was never closed'));
        }, 10_000),
      ),
    ]);
    // Nothing cut short was kept: the next visitor reaches the app again.
    const again = await get('app', '/trickle', { 'cache-control': 'no-cache' });
    assert.equal(again.headers['x-cache'], 'MISS');
    again.body.destroy();
  });

  it('passes a request body to the app', async () => {
    const answer = await request(`http://127.0.0.1:${String(edgePort)}/post`, {
      method: 'POST',
      headers: { host: `happ.${BASE}` },
      body: Buffer.alloc(300_000, 1),
    });
    assert.equal(answer.statusCode, 201);
    assert.equal(await answer.body.text(), 'got 300000 bytes');
  });

  it('passes on a request that expects 100 Continue (prevents a 502 for the uploads curl sends that way)', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 1);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({
        port: edgePort,
        host: '127.0.0.1',
        method: 'POST',
        path: '/upload',
        headers: { host: `happ.${BASE}`, expect: '100-continue', 'content-length': body.length },
      });
      // The body goes once the edge said to go on, as curl does.
      req.on('continue', () => {
        req.end(body);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
        });
      });
      req.on('error', reject);
    });
    assert.deepEqual(answer, { status: 201, text: `got ${String(body.length)} bytes` });
  });

  it('lets concurrent requests of a path whose answer is not storable each reach the app', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => get('app', '/counted/private')));
    const bodies = await Promise.all(answers.map((answer) => answer.body.text()));
    assert.equal(asked.get('/counted/private'), 5);
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      Array<number>(5).fill(200),
    );
    // Each visitor got an answer the app made for it, none another's copy.
    assert.ok(
      answers.every((answer) => answer.headers['x-cache'] === 'MISS'),
      bodies.join(),
    );
  });
});

describe('an edge in front of a runtime origin server (roles apart)', () => {
  const KEY = 'k'.repeat(43);
  let app: Server;
  let origin: Edge;
  let front: Edge;
  let originPort: number;
  let frontPort: number;
  let appPort: number;
  const environmentId = '0b6f3c9e-8a4e-4c2b-9d1a-1f2e3d4c5b6a';
  const host = `h${environmentId}.${BASE}`;

  function edgeSettings(extra: Partial<ConstructorParameters<typeof Edge>[0]>) {
    return {
      baseDomain: BASE,
      trustedProxies: new Set<string>(),
      upstreamTimeoutMs: 2_000,
      upstreamConnections: 4,
      cacheBytesPerEnvironment: 1024 * 1024,
      cacheEntryMaxBytes: 64 * 1024,
      staticMemoryBytes: 1024 * 1024,
      clock: systemClock,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      ...extra,
    };
  }

  before(async () => {
    app = createServer((req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(req.url === '/cacheable' && {
          'cache-control': 'public, s-maxage=60',
          'x-atoll-build': 'spoofed',
        }),
      });
      res.end(JSON.stringify(req.headers));
    });
    appPort = await listen(app);
    origin = new Edge(edgeSettings({ origin: true, originKey: KEY }));
    originPort = await listen(origin.server);
    origin.publish([{ environmentId, buildId: 'b1', target: { kind: 'server', port: appPort } }]);
    front = new Edge(edgeSettings({ originKey: KEY }));
    frontPort = await listen(front.server);
    front.publish([
      { environmentId, buildId: 'b1', target: { kind: 'server', host: '127.0.0.1', port: originPort } },
    ]);
  });

  after(async () => {
    for (const server of [front.server, origin.server, app]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('the origin refuses a request without the origin key or with a wrong one (prevents reaching a runtime app around the edges)', async () => {
    for (const headers of [
      { host },
      { host, 'x-atoll-origin-key': 'x'.repeat(43) },
      { host, 'x-atoll-origin-key': 'short' },
    ]) {
      const answer = await request(`http://127.0.0.1:${String(originPort)}/`, { headers });
      await answer.body.text();
      assert.equal(answer.statusCode, 403);
    }
  });

  it('the edge reaches the app through the origin with the key, which the app never sees (prevents the key leaking to tenant code)', async () => {
    const answer = await request(`http://127.0.0.1:${String(frontPort)}/`, {
      headers: { host: 'www.shop.example', 'x-atoll-origin-key': 'visitor-guess' },
    });
    assert.equal(answer.statusCode, 404, 'an unknown host is not routed, whatever key a visitor sends');
    await answer.body.text();
    const routed = await request(`http://127.0.0.1:${String(frontPort)}/`, { headers: { host } });
    assert.equal(routed.statusCode, 200);
    const seen = (await routed.body.json()) as Record<string, string>;
    assert.equal(seen['x-atoll-origin-key'], undefined);
    assert.equal(seen['x-forwarded-host'], host);
    assert.equal(
      seen['x-forwarded-for'],
      '127.0.0.1',
      'the origin passes the edge’s X-Forwarded-For on unchanged',
    );
  });

  it("replaces a visitor's own X-Forwarded-* with what the edge saw, each once (prevents a visitor claiming another address, scheme or host)", async () => {
    const routed = await request(`http://127.0.0.1:${String(frontPort)}/`, {
      headers: {
        host,
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'www.bank.example',
      },
    });
    const seen = (await routed.body.json()) as Record<string, string>;
    assert.deepEqual(
      [seen['x-forwarded-for'], seen['x-forwarded-proto'], seen['x-forwarded-host']],
      ['127.0.0.1', 'http', host],
    );
  });

  it('an edge that switched before the runtime keeps no answer of the old build (prevents a stale page cached after a deploy)', async () => {
    front.publish([
      { environmentId, buildId: 'b2', target: { kind: 'server', host: '127.0.0.1', port: originPort } },
    ]);
    const ask = async () => {
      const answer = await request(`http://127.0.0.1:${String(frontPort)}/cacheable`, { headers: { host } });
      await answer.body.text();
      return answer.headers;
    };
    // The origin still serves b1: its answers pass, none is kept as b2's.
    assert.equal((await ask())['x-cache'], 'MISS');
    const second = await ask();
    assert.equal(second['x-cache'], 'MISS');
    assert.equal(second['x-atoll-build'], undefined, 'the build header stops at the edge');
    origin.publish([{ environmentId, buildId: 'b2', target: { kind: 'server', port: appPort } }]);
    assert.equal((await ask())['x-cache'], 'MISS');
    assert.equal((await ask())['x-cache'], 'HIT', 'once the origin serves b2, its answers are kept');
  });
});

/**
 * Reads one answer off a raw keep-alive connection: every byte of it (header block and body, by its
 * Content-Length; none for a HEAD), and what follows it is kept for the next answer.
 */
class RawVisitor {
  readonly #socket: Socket;
  #buffered = Buffer.alloc(0);
  #wake: () => void = () => undefined;

  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffered = Buffer.concat([this.#buffered, chunk]);
      this.#wake();
    });
  }

  /** The answer's bytes on the wire, and its status. */
  async ask(method: string, path: string, host: string): Promise<{ status: number; bytes: number }> {
    this.#socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: identity\r\n\r\n`);
    let headerEnd = -1;
    while ((headerEnd = this.#buffered.indexOf('\r\n\r\n')) === -1) await this.#more();
    const head = this.#buffered.subarray(0, headerEnd).toString('latin1');
    const length = method === 'HEAD' ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    const total = headerEnd + 4 + length;
    while (this.#buffered.length < total) await this.#more();
    this.#buffered = this.#buffered.subarray(total);
    return { status: Number(head.slice(9, 12)), bytes: total };
  }

  close(): void {
    this.#socket.destroy();
  }

  #more(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }
}

describe('the bytes an edge counts per answer', () => {
  const records: RequestRecord[] = [];
  let edge: Edge;
  let edgePort: number;
  let app: Server;
  let site: string;

  before(async () => {
    site = mkdtempSync(join(tmpdir(), 'atoll-edge-bytes-'));
    writeFileSync(join(site, 'style.css'), 'body { color: #123456; }\n'.repeat(100));
    app = createServer((req, res) => {
      const body = `answer for ${req.url ?? ''}\n`.repeat(20);
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-length': Buffer.byteLength(body),
        'cache-control': req.url === '/cacheable' ? 's-maxage=60' : 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    const appPort = await listen(app);
    edge = new Edge({
      baseDomain: BASE,
      trustedProxies: new Set(),
      upstreamTimeoutMs: 5_000,
      upstreamConnections: 2,
      cacheBytesPerEnvironment: 1024 * 1024,
      cacheEntryMaxBytes: 64 * 1024,
      staticMemoryBytes: 1024 * 1024,
      clock: systemClock,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onRequest: (record) => records.push(record),
    });
    edgePort = await listen(edge.server);
    edge.publish([
      { environmentId: 'site', buildId: 'b1', target: { kind: 'static', root: site } },
      { environmentId: 'app', buildId: 'b1', target: { kind: 'server', port: appPort } },
    ]);
  });

  after(async () => {
    await new Promise((resolve) => edge.server.close(resolve));
    edge.server.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
    app.closeAllConnections();
    rmSync(site, { recursive: true, force: true });
  });

  it('counts exactly the bytes a visitor received, header block and body, for every kind of answer (prevents usage that misstates bandwidth)', async () => {
    const visitor = new RawVisitor(edgePort);
    const siteHost = `hsite.${BASE}`;
    const appHost = `happ.${BASE}`;
    try {
      const asks: [string, string, string, string][] = [
        ['GET', '/style.css', siteHost, 'a static file, first (looked up from disk)'],
        ['GET', '/style.css', siteHost, 'a static file from memory'],
        ['HEAD', '/style.css', siteHost, 'a HEAD of a static file from memory'],
        ['GET', '/missing.css', siteHost, 'a 404 of the static site'],
        ['GET', '/cacheable', appHost, 'a web-cache miss, proxied'],
        ['GET', '/cacheable', appHost, 'a web-cache hit'],
        ['HEAD', '/cacheable', appHost, 'a HEAD answered from the web cache'],
        ['GET', '/fresh', appHost, 'an answer never kept, proxied'],
      ];
      for (const [method, path, host, what] of asks) {
        const before = records.length;
        const answer = await visitor.ask(method, path, host);
        // An answer counted when it closes comes a moment after its last byte.
        for (let i = 0; i < 100 && records.length === before; i++)
          await new Promise((r) => setTimeout(r, 10));
        assert.equal(records.length, before + 1, `${what}: counted once`);
        const record = records[before];
        assert.ok(record, `${what}: a record`);
        assert.equal(record.status, answer.status, `${what}: status`);
        assert.equal(record.bytesOut, answer.bytes, `${what}: bytes`);
      }
      assert.deepEqual(
        records.slice(-4).map((record) => record.cache),
        ['MISS', 'HIT', 'HIT', 'MISS'],
      );
    } finally {
      visitor.close();
    }
  });
});
