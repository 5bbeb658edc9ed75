import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerWithFields, writeFieldsHead, type HeaderList } from './header-block.js';

const BODY = Buffer.from('<p>the same bytes</p>\n'.repeat(20));
/** With a Date field (a web-cache hit's) and without one (a static file's: node adds it). */
const DATED: HeaderList = Object.freeze([
  'content-type',
  'text/html; charset=utf-8',
  'content-length',
  String(BODY.length),
  'date',
  'Sun, 29 Nov 2026 10:00:00 GMT',
  'set-cookie',
  Object.freeze(['a=1', 'b=2']),
  'age',
  '3',
]);
const UNDATED: HeaderList = Object.freeze([
  'Content-Type',
  'text/css',
  'ETag',
  '"abc"',
  'Content-Length',
  String(BODY.length),
]);
const GONE: HeaderList = Object.freeze(['content-type', 'text/plain', 'content-length', String(BODY.length)]);
/** A proxied answer's: a new list for every answer, the same fields; and one without Content-Length (chunks). */
const proxied = () => [
  'content-type',
  'text/plain',
  'date',
  'Sun, 29 Nov 2026 10:00:00 GMT',
  'x-cache',
  'MISS',
];
const ROUTE = {};
/** One second for the whole test: every answer after the first of a list may reuse its block. */
const NOW_MS = 1_764_410_000_000;

function listOf(url: string | undefined): { status: number; list: HeaderList } {
  if (url === '/undated') return { status: 200, list: UNDATED };
  if (url === '/gone') return { status: 410, list: GONE };
  return { status: 200, list: DATED };
}

interface Pair {
  /** node's own: writeHead and end for every answer. */
  readonly control: Server;
  /** The same answers through answerWithFields, counting the answers node formatted. */
  readonly tested: Server;
  formatted: number;
  answered: number;
}

function makePair(settings: { keepAliveTimeout?: number; maxRequestsPerSocket?: number } = {}): Pair {
  const pair: Pair = {
    control: createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/proxied') === true) {
        res.writeHead(200, proxied());
        res.write(BODY);
        res.end(req.url === '/proxied/2' ? BODY : undefined);
        return;
      }
      const { status, list } = listOf(req.url);
      res.writeHead(status, list as (string | string[])[]);
      res.end(req.method === 'HEAD' ? undefined : BODY);
    }),
    tested: createServer((req: IncomingMessage, res: ServerResponse) => {
      const { status, list } = listOf(req.url);
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((...args: Parameters<typeof writeHead>) => {
        pair.formatted++;
        return writeHead(...args);
      }) as typeof res.writeHead;
      pair.answered++;
      if (req.url?.startsWith('/proxied') === true) {
        res.cork();
        writeFieldsHead(res, 200, proxied(), NOW_MS, ROUTE);
        res.write(BODY);
        res.uncork();
        res.end(req.url === '/proxied/2' ? BODY : undefined);
        return;
      }
      answerWithFields(res, status, list, req.method === 'HEAD' ? undefined : BODY, NOW_MS);
    }),
    formatted: 0,
    answered: 0,
  };
  for (const server of [pair.control, pair.tested]) {
    if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
    if (settings.maxRequestsPerSocket !== undefined)
      server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
  }
  return pair;
}

async function listen(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
}

/** Sends the requests on one connection (one write each, or all at once) and reads until the server closes it. */
async function exchange(server: Server, requests: readonly string[], pipelined: boolean): Promise<string> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve, reject) => {
    socket.once('close', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  if (pipelined) socket.write(requests.join(''));
  else
    for (const request of requests) {
      const answered = chunks.length;
      socket.write(request);
      // The next request once this one's answer has begun to arrive: each one alone in its packet.
      while (chunks.length === answered && !socket.destroyed)
        await new Promise((resolve) => setTimeout(resolve, 5));
    }
  await closed;
  // node adds a Date field to an undated list: the same second is not guaranteed between two servers.
  return Buffer.concat(chunks)
    .toString('latin1')
    .replace(/\r\nDate: [^\r]*\r\n/g, '\r\nDate: (now)\r\n');
}

const get = (path: string, fields = '') => `GET ${path} HTTP/1.1\r\nHost: h\r\n${fields}\r\n`;
const head = (path: string) => `HEAD ${path} HTTP/1.1\r\nHost: h\r\n\r\n`;
const last = (path: string) => get(path, 'Connection: close\r\n');

describe('answers whose header block node made once (answerWithFields)', () => {
  const plain = makePair();
  const short = makePair({ keepAliveTimeout: 2_000 });
  // node says Connection: close on a connection's last answer but leaves the closing to the visitor: a short
  // keep-alive timeout closes it soon after.
  const limited = makePair({ maxRequestsPerSocket: 3, keepAliveTimeout: 100 });
  const pairs = [plain, short, limited];

  before(async () => {
    for (const pair of pairs) for (const server of [pair.control, pair.tested]) await listen(server);
  });
  after(() => {
    for (const pair of pairs)
      for (const server of [pair.control, pair.tested]) {
        server.closeAllConnections();
        server.close();
      }
  });

  async function same(pair: Pair, requests: readonly string[], pipelined = false): Promise<void> {
    const expected = await exchange(pair.control, requests, pipelined);
    const got = await exchange(pair.tested, requests, pipelined);
    assert.equal(got, expected);
  }

  it("writes node's very bytes on a keep-alive connection, formatting a list's block once", async () => {
    plain.formatted = plain.answered = 0;
    await same(plain, [
      get('/'),
      get('/'),
      get('/undated'),
      get('/undated'),
      get('/gone'),
      get('/gone'),
      last('/'),
    ]);
    assert.equal(plain.answered, 7);
    // The first answer of each list, and the last (Connection: close is not the kept block).
    assert.equal(plain.formatted, 4);
  });

  it("writes node's very bytes for a streamed answer, in chunks, its fields compared with the last one's", async () => {
    plain.formatted = plain.answered = 0;
    await same(plain, [
      get('/proxied/1'),
      get('/proxied/2'),
      head('/proxied/1'),
      get('/proxied/2'),
      last('/proxied/1'),
    ]);
    await same(plain, [get('/proxied/1'), get('/proxied/2'), last('/proxied/2')], true);
    // An HTTP/1.0 visitor that keeps the connection gets no chunks: node ends the answer by closing instead.
    await same(plain, [
      get('/proxied/1'),
      'GET /proxied/2 HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n',
    ]);
    assert.equal(plain.answered, 10);
    // The first answer; the HEAD and the GET after it (without Content-Length, a HEAD's block has no
    // Transfer-Encoding); each connection's last (Connection: close); the HTTP/1.0 one.
    assert.equal(plain.formatted, 6);
  });

  it("writes node's very bytes for pipelined requests and HEAD", async () => {
    await same(
      plain,
      [get('/'), head('/'), get('/undated'), head('/undated'), get('/'), last('/undated')],
      true,
    );
    await same(plain, [head('/'), head('/undated'), get('/'), last('/')]);
  });

  it('lets node write the answers a kept block would misstate: HTTP/1.0, Connection: close, the last of a connection', async () => {
    await same(plain, ['GET / HTTP/1.0\r\nHost: h\r\n\r\n']);
    await same(plain, [
      'GET /undated HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n',
      last('/undated'),
    ]);
    await same(plain, [last('/undated')]);
    // The third request is the connection's last: node says Connection: close.
    await same(limited, [get('/'), get('/'), get('/'), get('/')]);
    await same(limited, [get('/undated'), get('/undated'), get('/undated')], true);
  });

  it('keeps the Keep-Alive timeout of each server apart (a block is never reused with another one)', async () => {
    short.formatted = short.answered = 0;
    await same(plain, [get('/'), last('/')]);
    await same(short, [get('/'), get('/'), last('/')]);
    await same(plain, [get('/'), last('/')]);
    assert.equal(short.answered, 3);
    assert.equal(short.formatted, 2);
  });
});
