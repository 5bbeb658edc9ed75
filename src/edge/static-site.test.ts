import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  realpath,
  rm,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { StaticSite, chooseCacheControl, type StaticSiteOptions } from './static-site.js';

const REVALIDATE = 'public, max-age=0, must-revalidate';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SECRET = 'TOP SECRET: must never be served';
const MAX_MEMORY_FILE_BYTES = 64 * 1024;
const MODIFIED = new Date('2024-01-02T03:04:05Z');

const BUNDLE_JS = 'export const answer = 42;\n'.repeat(200);
const ONLY_GZ_CSS = 'body { color: rebeccapurple; }\n'.repeat(50);
const RANGE_TEXT = Array.from({ length: 1000 }, (_, index) => String.fromCharCode(97 + (index % 26))).join(
  '',
);
const BIG = randomBytes(1024 * 1024 + 123);
const HUGE = randomBytes(16 * 1024 * 1024);
const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface TestServer {
  port: number;
  /** Every serve() promise, so tests can check none rejects and all settle. */
  served: Promise<void>[];
  errors: unknown[];
  close(): Promise<void>;
}

interface Fixture {
  base: string;
  root: string;
  plainRoot: string;
}

async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

async function createFixture(): Promise<Fixture> {
  const base = await mkdtemp(join(tmpdir(), 'atoll-static-site-'));
  const root = join(base, 'site');
  const plainRoot = join(base, 'plain');
  // Next to the roots, where a traversal would land.
  await writeFile(join(base, 'secret.txt'), SECRET);
  // A sibling whose name extends the root's: a naive startsWith(root) check would let it through.
  await writeFiles(join(base, 'site-evil'), { 'evil.txt': SECRET });
  await writeFiles(root, {
    'index.html': '<!doctype html><title>home</title>',
    'style.css': 'body { margin: 0; }\n',
    'app.js': 'console.log("app");\n',
    'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'data.json': '{"ok":true}',
    'module.wasm': WASM,
    'file.unknownext': 'mystery',
    README: 'no extension',
    'docs/index.html': '<!doctype html><title>docs</title>',
    'docs/.hidden': SECRET,
    'my docs/index.html': '<!doctype html><title>spaced</title>',
    'about.html': '<!doctype html><title>about</title>',
    notes: 'notes without extension',
    'notes.html': '<!doctype html><title>notes page</title>',
    'blog.html': '<!doctype html><title>blog</title>',
    'blog/post.html': '<!doctype html><title>post</title>',
    '404.html': '<!doctype html><title>custom not found</title>',
    'bundle.js': BUNDLE_JS,
    'bundle.js.br': brotliCompressSync(BUNDLE_JS),
    'bundle.js.gz': gzipSync(BUNDLE_JS),
    'only-gz.css': ONLY_GZ_CSS,
    'only-gz.css.gz': gzipSync(ONLY_GZ_CSS),
    'range.txt': RANGE_TEXT,
    'dated.txt': 'dated',
    'cached.txt': 'original bytes',
    'deleted-later.txt': 'soon gone, and larger than the tiny budget\n'.repeat(4),
    'big.bin': BIG,
    'huge.bin': HUGE,
    '.env': SECRET,
    '.git/config': SECRET,
    '.well-known/security.txt': 'Contact: mailto:security@example.com\n',
    '.well-known/.secret': SECRET,
    '_astro/index.CZ3xKiuE.css': 'a{}',
    'empty.txt': '',
  });
  await mkdir(join(root, 'empty-folder'));
  await utimes(join(root, 'dated.txt'), MODIFIED, MODIFIED);
  await symlink(join(base, 'secret.txt'), join(root, 'leak.txt'));
  await symlink('../secret.txt', join(root, 'relative-leak.txt'));
  await symlink(base, join(root, 'leak-dir'));
  await symlink(join(base, 'site-evil', 'evil.txt'), join(root, 'prefix-leak.txt'));
  await symlink('style.css', join(root, 'inside.css'));
  await symlink('.env', join(root, 'to-dotfile.txt'));
  await writeFiles(plainRoot, { 'index.html': '<!doctype html><title>plain</title>' });
  return { base, root, plainRoot };
}

async function startServer(options: Omit<StaticSiteOptions, 'onError'>): Promise<TestServer> {
  const errors: unknown[] = [];
  const served: Promise<void>[] = [];
  const site = new StaticSite({ ...options, onError: (error) => errors.push(error) });
  const server = createServer((req, res) => {
    served.push(site.serve(req, res, req.url ?? '/', Date.now()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    served,
    errors,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** node:http rather than fetch: fetch normalizes `..` away and decodes encodings itself. */
function request(
  port: number,
  path: string,
  options: { method?: string; headers?: OutgoingHttpHeaders } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function etagOf(content: string | Buffer): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 22)}"`;
}

describe('StaticSite', () => {
  let fixture: Fixture;
  let site: TestServer;
  let plain: TestServer;

  function get(path: string, headers: OutgoingHttpHeaders = {}): Promise<Reply> {
    return request(site.port, path, { headers });
  }

  before(async () => {
    fixture = await createFixture();
    site = await startServer({ root: fixture.root, maxMemoryFileBytes: MAX_MEMORY_FILE_BYTES });
    plain = await startServer({ root: fixture.plainRoot });
  });

  after(async () => {
    await site.close();
    await plain.close();
    // serve() never rejects and always settles, whatever the tests threw at it.
    await Promise.all([...site.served, ...plain.served]);
    assert.deepEqual(site.errors, []);
    assert.deepEqual(plain.errors, []);
    await rm(fixture.base, { recursive: true, force: true });
  });

  describe('content types', () => {
    const cases: [string, string][] = [
      ['/index.html', 'text/html; charset=utf-8'],
      ['/style.css', 'text/css; charset=utf-8'],
      ['/app.js', 'text/javascript; charset=utf-8'],
      ['/logo.svg', 'image/svg+xml'],
      ['/data.json', 'application/json; charset=utf-8'],
      ['/module.wasm', 'application/wasm'],
      ['/file.unknownext', 'application/octet-stream'],
      ['/README', 'application/octet-stream'],
      ['/.well-known/security.txt', 'text/plain; charset=utf-8'],
    ];
    for (const [path, contentType] of cases) {
      it(`serves ${path} as ${contentType}`, async () => {
        const reply = await get(path);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers['content-type'], contentType);
        assert.equal(reply.headers['content-length'], String(reply.body.length));
        assert.equal(reply.headers['accept-ranges'], 'bytes');
      });
    }

    it('serves the bytes of the file', async () => {
      assert.deepEqual((await get('/module.wasm')).body, WASM);
      assert.equal((await get('/data.json')).body.toString(), '{"ok":true}');
    });

    it('serves an empty file', async () => {
      const reply = await get('/empty.txt');
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-length'], '0');
      assert.equal(reply.body.length, 0);
    });
  });

  describe('folders and pretty URLs', () => {
    it('serves index.html for / and for a folder with a trailing slash', async () => {
      const home = await get('/');
      assert.equal(home.status, 200);
      assert.equal(home.body.toString(), '<!doctype html><title>home</title>');
      const docs = await get('/docs/');
      assert.equal(docs.status, 200);
      assert.equal(docs.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(docs.body.toString(), '<!doctype html><title>docs</title>');
    });

    it('redirects a folder without its trailing slash, keeping the query', async () => {
      const reply = await get('/docs?lang=en&page=2');
      assert.equal(reply.status, 301);
      assert.equal(reply.headers.location, '/docs/?lang=en&page=2');
      assert.equal(reply.headers['cache-control'], REVALIDATE);
      const bare = await get('/docs');
      assert.equal(bare.status, 301);
      assert.equal(bare.headers.location, '/docs/');
    });

    it('keeps the redirect URL encoded', async () => {
      const reply = await get('/my%20docs');
      assert.equal(reply.status, 301);
      assert.equal(reply.headers.location, '/my%20docs/');
      assert.equal((await get('/my%20docs/')).body.toString(), '<!doctype html><title>spaced</title>');
    });

    it('answers a redirect to HEAD without a body', async () => {
      const reply = await request(site.port, '/docs', { method: 'HEAD' });
      assert.equal(reply.status, 301);
      assert.equal(reply.headers.location, '/docs/');
      assert.equal(reply.body.length, 0);
    });

    it('answers 404 for a folder without index.html', async () => {
      assert.equal((await get('/empty-folder')).status, 404);
      assert.equal((await get('/empty-folder/')).status, 404);
    });

    it('serves about.html for /about', async () => {
      const reply = await get('/about');
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(reply.body.toString(), '<!doctype html><title>about</title>');
      assert.equal((await get('/about.html')).body.toString(), '<!doctype html><title>about</title>');
    });

    it('prefers the exact file, then the .html file, then the folder (nginx try_files order)', async () => {
      assert.equal((await get('/notes')).body.toString(), 'notes without extension');
      const blog = await get('/blog');
      assert.equal(blog.status, 200);
      assert.equal(blog.body.toString(), '<!doctype html><title>blog</title>');
      assert.equal((await get('/blog/post')).body.toString(), '<!doctype html><title>post</title>');
    });

    it('accepts an absolute-form request target', async () => {
      const reply = await get('http://example.com/style.css');
      assert.equal(reply.status, 200);
      assert.equal(reply.body.toString(), 'body { margin: 0; }\n');
    });
  });

  describe('missing files', () => {
    it('answers 404 with the site 404.html', async () => {
      const reply = await get('/no/such/page');
      assert.equal(reply.status, 404);
      assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(reply.body.toString(), '<!doctype html><title>custom not found</title>');
      assert.equal(reply.headers.etag, undefined);
    });

    it('answers 404 to HEAD without a body', async () => {
      const reply = await request(site.port, '/missing.png', { method: 'HEAD' });
      assert.equal(reply.status, 404);
      assert.equal(reply.body.length, 0);
    });

    it('answers a plain 404 page when the site has no 404.html', async () => {
      const reply = await request(plain.port, '/missing');
      assert.equal(reply.status, 404);
      assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(reply.body.toString(), /404 Not Found/);
      // Asked twice: the miss is remembered and answered the same.
      assert.equal((await request(plain.port, '/missing')).status, 404);
    });
  });

  describe('precompressed files', () => {
    it('sends .br when br is accepted', async () => {
      const reply = await get('/bundle.js', { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-encoding'], 'br');
      assert.equal(reply.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(reply.headers.vary, 'Accept-Encoding');
      assert.equal(brotliDecompressSync(reply.body).toString(), BUNDLE_JS);
    });

    it('sends .gz when only gzip is accepted', async () => {
      const reply = await get('/bundle.js', { 'accept-encoding': 'gzip' });
      assert.equal(reply.headers['content-encoding'], 'gzip');
      assert.equal(reply.headers.vary, 'Accept-Encoding');
      assert.equal(gunzipSync(reply.body).toString(), BUNDLE_JS);
    });

    it('honours q=0 and q-value order', async () => {
      const cases: [string, string | undefined][] = [
        ['br;q=0, gzip', 'gzip'],
        ['br;q=0.5, gzip;q=0.8', 'gzip'],
        ['gzip;q=0.5, br;q=0.8', 'br'],
        ['gzip;q=0, br;q=0', undefined],
        ['*', 'br'],
        ['*, br;q=0', 'gzip'],
        ['*;q=0', undefined],
        ['x-gzip', 'gzip'],
        ['BR', 'br'],
        ['identity', undefined],
        ['br;q=bogus', undefined],
      ];
      for (const [acceptEncoding, expected] of cases) {
        const reply = await get('/bundle.js', { 'accept-encoding': acceptEncoding });
        assert.equal(reply.headers['content-encoding'], expected, acceptEncoding);
        assert.equal(reply.headers.vary, 'Accept-Encoding', acceptEncoding);
        if (expected === undefined) assert.equal(reply.body.toString(), BUNDLE_JS, acceptEncoding);
      }
    });

    it('sends identity, with Vary, when no Accept-Encoding is sent', async () => {
      const reply = await get('/bundle.js');
      assert.equal(reply.headers['content-encoding'], undefined);
      assert.equal(reply.headers.vary, 'Accept-Encoding');
      assert.equal(reply.body.toString(), BUNDLE_JS);
    });

    it('falls back to .gz when there is no .br', async () => {
      const reply = await get('/only-gz.css', { 'accept-encoding': 'br, gzip' });
      assert.equal(reply.headers['content-encoding'], 'gzip');
      assert.equal(reply.headers['content-type'], 'text/css; charset=utf-8');
      assert.equal(gunzipSync(reply.body).toString(), ONLY_GZ_CSS);
      const brOnly = await get('/only-gz.css', { 'accept-encoding': 'br' });
      assert.equal(brOnly.headers['content-encoding'], undefined);
      assert.equal(brOnly.headers.vary, 'Accept-Encoding');
    });

    it('sends no Vary for a file without precompressed variants', async () => {
      const reply = await get('/style.css', { 'accept-encoding': 'gzip, br' });
      assert.equal(reply.headers['content-encoding'], undefined);
      assert.equal(reply.headers.vary, undefined);
    });

    it('gives each variant its own ETag and revalidates each against its own', async () => {
      const br = await get('/bundle.js', { 'accept-encoding': 'br' });
      const gzip = await get('/bundle.js', { 'accept-encoding': 'gzip' });
      const identity = await get('/bundle.js');
      const etags = new Set([br.headers.etag, gzip.headers.etag, identity.headers.etag]);
      assert.equal(etags.size, 3);
      assert.equal(identity.headers.etag, etagOf(BUNDLE_JS));
      const notModified = await get('/bundle.js', {
        'accept-encoding': 'br',
        'if-none-match': br.headers.etag,
      });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.headers.vary, 'Accept-Encoding');
      const otherVariant = await get('/bundle.js', {
        'accept-encoding': 'gzip',
        'if-none-match': br.headers.etag,
      });
      assert.equal(otherVariant.status, 200);
      assert.equal(otherVariant.headers['content-encoding'], 'gzip');
    });

    it('answers a Range request from the identity file', async () => {
      const reply = await get('/bundle.js', { 'accept-encoding': 'gzip, br', range: 'bytes=0-9' });
      assert.equal(reply.status, 206);
      assert.equal(reply.headers['content-encoding'], undefined);
      assert.equal(reply.headers.vary, 'Accept-Encoding');
      assert.equal(reply.headers['content-range'], `bytes 0-9/${BUNDLE_JS.length}`);
      assert.equal(reply.body.toString(), BUNDLE_JS.slice(0, 10));
    });
  });

  describe('validators', () => {
    it('sends a strong ETag from the content hash, stable across requests', async () => {
      const first = await get('/style.css');
      const second = await get('/style.css');
      assert.equal(first.headers.etag, etagOf('body { margin: 0; }\n'));
      assert.equal(second.headers.etag, first.headers.etag);
      assert.notEqual((await get('/app.js')).headers.etag, first.headers.etag);
    });

    it('answers 304 without a body to a matching If-None-Match', async () => {
      const etag = (await get('/style.css')).headers.etag!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"nope",W/${etag}`, '*']) {
        const reply = await get('/style.css', { 'if-none-match': ifNoneMatch });
        assert.equal(reply.status, 304, ifNoneMatch);
        assert.equal(reply.headers.etag, etag);
        assert.equal(reply.headers['cache-control'], REVALIDATE);
        assert.equal(reply.body.length, 0);
      }
      const head = await request(site.port, '/style.css', {
        method: 'HEAD',
        headers: { 'if-none-match': etag },
      });
      assert.equal(head.status, 304);
    });

    it('answers 200 to a non-matching If-None-Match, ignoring If-Modified-Since then', async () => {
      const reply = await get('/style.css', {
        'if-none-match': '"nope"',
        'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString(),
      });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.toString(), 'body { margin: 0; }\n');
    });

    it('sends Last-Modified from mtime and honours If-Modified-Since', async () => {
      const reply = await get('/dated.txt');
      assert.equal(reply.headers['last-modified'], 'Tue, 02 Jan 2024 03:04:05 GMT');
      const same = await get('/dated.txt', { 'if-modified-since': 'Tue, 02 Jan 2024 03:04:05 GMT' });
      assert.equal(same.status, 304);
      assert.equal(same.body.length, 0);
      const later = await get('/dated.txt', { 'if-modified-since': 'Wed, 03 Jan 2024 00:00:00 GMT' });
      assert.equal(later.status, 304);
      const earlier = await get('/dated.txt', { 'if-modified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' });
      assert.equal(earlier.status, 200);
      assert.equal(earlier.body.toString(), 'dated');
      const invalid = await get('/dated.txt', { 'if-modified-since': 'yesterday-ish' });
      assert.equal(invalid.status, 200);
    });

    it('answers 412 to a failed If-Match or If-Unmodified-Since', async () => {
      const etag = (await get('/dated.txt')).headers.etag!;
      assert.equal((await get('/dated.txt', { 'if-match': '"nope"' })).status, 412);
      assert.equal((await get('/dated.txt', { 'if-match': `W/${etag}` })).status, 412);
      assert.equal((await get('/dated.txt', { 'if-match': etag })).status, 200);
      assert.equal(
        (await get('/dated.txt', { 'if-unmodified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' })).status,
        412,
      );
      assert.equal(
        (await get('/dated.txt', { 'if-unmodified-since': 'Tue, 02 Jan 2024 03:04:05 GMT' })).status,
        200,
      );
    });
  });

  describe('ranges', () => {
    const size = RANGE_TEXT.length;

    it('answers single byte ranges with 206', async () => {
      const cases: [string, number, number][] = [
        ['bytes=0-99', 0, 99],
        ['bytes=100-', 100, size - 1],
        ['bytes=-100', size - 100, size - 1],
        ['bytes=990-5000', 990, size - 1],
        ['bytes=0-4,3-9', 0, 9],
      ];
      for (const [range, start, end] of cases) {
        const reply = await get('/range.txt', { range });
        assert.equal(reply.status, 206, range);
        assert.equal(reply.headers['content-range'], `bytes ${start}-${end}/${size}`, range);
        assert.equal(reply.headers['content-length'], String(end - start + 1), range);
        assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8', range);
        assert.equal(reply.body.toString(), RANGE_TEXT.slice(start, end + 1), range);
      }
    });

    it('answers an unsatisfiable range with 416 and the current length', async () => {
      const reply = await get('/range.txt', { range: 'bytes=5000-' });
      assert.equal(reply.status, 416);
      assert.equal(reply.headers['content-range'], `bytes */${size}`);
      assert.equal(reply.body.length, 0);
    });

    it('answers several ranges, malformed ranges and other units with the whole file', async () => {
      for (const range of ['bytes=0-1,500-501', 'bytes=abc', 'items=0-5']) {
        const reply = await get('/range.txt', { range });
        assert.equal(reply.status, 200, range);
        assert.equal(reply.body.toString(), RANGE_TEXT, range);
      }
    });

    it('honours the range only when If-Range matches', async () => {
      const first = await get('/range.txt');
      const etag = first.headers.etag!;
      const lastModified = first.headers['last-modified']!;
      const matching = await get('/range.txt', { range: 'bytes=0-9', 'if-range': etag });
      assert.equal(matching.status, 206);
      assert.equal(matching.body.toString(), RANGE_TEXT.slice(0, 10));
      const byDate = await get('/range.txt', { range: 'bytes=0-9', 'if-range': lastModified });
      assert.equal(byDate.status, 206);
      for (const ifRange of ['"nope"', `W/${etag}`, 'Mon, 01 Jan 2024 00:00:00 GMT']) {
        const reply = await get('/range.txt', { range: 'bytes=0-9', 'if-range': ifRange });
        assert.equal(reply.status, 200, ifRange);
        assert.equal(reply.body.toString(), RANGE_TEXT, ifRange);
      }
    });

    it('ignores Range on HEAD', async () => {
      const reply = await request(site.port, '/range.txt', {
        method: 'HEAD',
        headers: { range: 'bytes=0-9' },
      });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-length'], String(size));
      assert.equal(reply.body.length, 0);
    });
  });

  describe('methods', () => {
    it('answers HEAD with the headers of GET and no body', async () => {
      const getReply = await get('/style.css');
      const headReply = await request(site.port, '/style.css', { method: 'HEAD' });
      assert.equal(headReply.status, 200);
      assert.equal(headReply.body.length, 0);
      for (const name of [
        'content-type',
        'content-length',
        'etag',
        'last-modified',
        'cache-control',
        'accept-ranges',
      ]) {
        assert.equal(headReply.headers[name], getReply.headers[name], name);
      }
    });

    it('answers other methods with 405 and Allow', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
        const reply = await request(site.port, '/style.css', { method });
        assert.equal(reply.status, 405, method);
        assert.equal(reply.headers.allow, 'GET, HEAD', method);
      }
    });
  });

  describe('safety', () => {
    function assertNoLeak(reply: Reply, path: string): void {
      assert.ok(!reply.body.toString().includes(SECRET), `${path} leaked the secret`);
    }

    it('never serves a file outside the root by traversal', async () => {
      const paths = [
        '/../secret.txt',
        '/%2e%2e/secret.txt',
        '/%2E%2E/secret.txt',
        '/..%2fsecret.txt',
        '/%2e%2e%2fsecret.txt',
        '/docs/../../secret.txt',
        '/docs/%2e%2e/%2e%2e/secret.txt',
        '//../secret.txt',
        '/..%5csecret.txt',
        '/%252e%252e/secret.txt',
        '/../site-evil/evil.txt',
        'http://example.com/../secret.txt',
      ];
      for (const path of paths) {
        const reply = await get(path);
        assert.equal(reply.status, 404, path);
        assertNoLeak(reply, path);
      }
    });

    it('answers 400 to NUL bytes and malformed escapes', async () => {
      for (const path of ['/index.html%00', '/%00/../secret.txt', '/%E0%A4%A', '/%', '/%zz', '/a%C0%AFb']) {
        const reply = await get(path);
        assert.equal(reply.status, 400, path);
        assertNoLeak(reply, path);
      }
      assert.equal((await get('relative/path')).status, 400);
    });

    it('hides dotfiles but serves /.well-known/', async () => {
      for (const path of [
        '/.env',
        '/.git/config',
        '/%2egit/config',
        '/docs/.hidden',
        '/.well-known/.secret',
        '/.git/',
      ]) {
        const reply = await get(path);
        assert.equal(reply.status, 404, path);
        assertNoLeak(reply, path);
      }
      const wellKnown = await get('/.well-known/security.txt');
      assert.equal(wellKnown.status, 200);
      assert.equal(wellKnown.body.toString(), 'Contact: mailto:security@example.com\n');
    });

    it('does not follow symlinks that leave the root or reach a dotfile', async () => {
      for (const path of [
        '/leak.txt',
        '/relative-leak.txt',
        '/leak-dir/secret.txt',
        '/leak-dir',
        '/prefix-leak.txt',
        '/to-dotfile.txt',
      ]) {
        const reply = await get(path);
        assert.equal(reply.status, 404, path);
        assertNoLeak(reply, path);
      }
    });

    it('follows a symlink that stays inside the root', async () => {
      const reply = await get('/inside.css');
      assert.equal(reply.status, 200);
      assert.equal(reply.body.toString(), 'body { margin: 0; }\n');
    });

    it('answers an absurdly long path with 404', async () => {
      assert.equal((await get('/' + 'a'.repeat(5000))).status, 404);
      assert.equal((await get('/' + 'a/'.repeat(200) + 'b'.repeat(300))).status, 404);
    });
  });

  describe('cache headers', () => {
    it('revalidates HTML and plain files, pins hashed assets', async () => {
      assert.equal((await get('/')).headers['cache-control'], REVALIDATE);
      assert.equal((await get('/about')).headers['cache-control'], REVALIDATE);
      assert.equal((await get('/style.css')).headers['cache-control'], REVALIDATE);
      assert.equal((await get('/_astro/index.CZ3xKiuE.css')).headers['cache-control'], IMMUTABLE);
      assert.equal((await get('/missing')).headers['cache-control'], REVALIDATE);
    });
  });

  describe('large files', () => {
    it('streams a file larger than maxMemoryFileBytes', async () => {
      const reply = await get('/big.bin');
      assert.equal(reply.status, 200);
      assert.equal(reply.headers['content-length'], String(BIG.length));
      assert.equal(reply.headers['content-type'], 'application/octet-stream');
      assert.equal(reply.headers.etag, etagOf(BIG));
      assert.ok(reply.body.equals(BIG));
    });

    it('streams ranges of a large file', async () => {
      const middle = await get('/big.bin', { range: 'bytes=100000-199999' });
      assert.equal(middle.status, 206);
      assert.equal(middle.headers['content-range'], `bytes 100000-199999/${BIG.length}`);
      assert.ok(middle.body.equals(BIG.subarray(100000, 200000)));
      const tail = await get('/big.bin', { range: 'bytes=-10' });
      assert.equal(tail.status, 206);
      assert.ok(tail.body.equals(BIG.subarray(BIG.length - 10)));
      const open = await get('/big.bin', { range: `bytes=${BIG.length - 5}-` });
      assert.ok(open.body.equals(BIG.subarray(BIG.length - 5)));
    });

    it('revalidates a large file and answers HEAD without reading it', async () => {
      const etag = etagOf(BIG);
      assert.equal((await get('/big.bin', { 'if-none-match': etag })).status, 304);
      const head = await request(site.port, '/big.bin', { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-length'], String(BIG.length));
      assert.equal(head.body.length, 0);
    });

    it('survives a client that disconnects mid-stream and closes the file', async () => {
      const servedBefore = site.served.length;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: site.port, path: '/huge.bin', agent: false },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ECONNRESET') reject(error);
        });
        req.end();
      });
      assert.equal(site.served.length, servedBefore + 1);
      await site.served[servedBefore];
      assert.deepEqual(site.errors, []);
      if (existsSync('/proc/self/fd')) {
        const deadline = Date.now() + 5000;
        const huge = await realpath(join(fixture.root, 'huge.bin'));
        while (await isOpen(huge)) {
          assert.ok(Date.now() < deadline, 'huge.bin is still open after the client left');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      // The site keeps serving.
      assert.equal((await get('/style.css')).status, 200);
    });
  });

  describe('memory cache', () => {
    it('returns identical bytes on repeated requests, from memory', async () => {
      const first = await get('/cached.txt');
      const second = await get('/cached.txt');
      assert.equal(first.body.toString(), 'original bytes');
      assert.ok(second.body.equals(first.body));
      assert.equal(second.headers.etag, first.headers.etag);
      // The folder is immutable by contract; changing it anyway shows the answer comes from memory.
      await writeFile(join(fixture.root, 'cached.txt'), 'CHANGED BYTES!');
      const third = await get('/cached.txt');
      assert.ok(third.body.equals(first.body));
    });

    it('answers many concurrent first requests for one file alike', async () => {
      const replies = await Promise.all(Array.from({ length: 20 }, () => get('/logo.svg')));
      for (const reply of replies) {
        assert.equal(reply.status, 200);
        assert.equal(reply.body.toString(), '<svg xmlns="http://www.w3.org/2000/svg"/>');
        assert.equal(reply.headers.etag, replies[0]!.headers.etag);
      }
    });
  });
});

describe('StaticSite with a tiny memory budget', () => {
  let fixture: Fixture;
  let server: TestServer;

  before(async () => {
    fixture = await createFixture();
    server = await startServer({ root: fixture.root, memoryBytes: 16 });
  });

  after(async () => {
    await server.close();
    await Promise.all(server.served);
    await rm(fixture.base, { recursive: true, force: true });
  });

  it('still serves files that do not fit, reading them again each time', async () => {
    for (let round = 0; round < 3; round += 1) {
      const reply = await request(server.port, '/range.txt');
      assert.equal(reply.status, 200);
      assert.equal(reply.body.toString(), RANGE_TEXT);
    }
    const ranged = await request(server.port, '/range.txt', { headers: { range: 'bytes=10-19' } });
    assert.equal(ranged.body.toString(), RANGE_TEXT.slice(10, 20));
  });

  it('answers 500 and reports when a known file vanished, and ends the response', async () => {
    assert.equal((await request(server.port, '/deleted-later.txt')).status, 200);
    await unlink(join(fixture.root, 'deleted-later.txt'));
    const reply = await request(server.port, '/deleted-later.txt');
    assert.equal(reply.status, 500);
    assert.equal(server.errors.length, 1);
    server.errors.length = 0;
  });
});

describe('StaticSite options', () => {
  it('refuses invalid budgets at once', () => {
    assert.throws(() => new StaticSite({ root: tmpdir(), memoryBytes: 0 }), RangeError);
    assert.throws(() => new StaticSite({ root: tmpdir(), maxMemoryFileBytes: 1.5 }), RangeError);
    assert.throws(() => new StaticSite({ root: tmpdir(), maxPaths: -1 }), RangeError);
  });

  it('answers 500 while the root is missing or not a folder, and serves once it is there', async () => {
    const base = await mkdtemp(join(tmpdir(), 'atoll-static-site-'));
    const missing = await startServer({ root: join(base, 'later') });
    const notFolder = await startServer({ root: join(base, 'file') });
    try {
      await writeFile(join(base, 'file'), 'x');
      assert.equal((await request(missing.port, '/')).status, 500);
      assert.equal((await request(missing.port, '/.env')).status, 404);
      assert.equal((await request(notFolder.port, '/')).status, 500);
      assert.equal(missing.errors.length, 2);
      assert.match(String(notFolder.errors[0]), /not a folder/);
      await writeFiles(join(base, 'later'), { 'index.html': 'now here' });
      const reply = await request(missing.port, '/');
      assert.equal(reply.status, 200);
      assert.equal(reply.body.toString(), 'now here');
    } finally {
      await missing.close();
      await notFolder.close();
      await Promise.all([...missing.served, ...notFolder.served]);
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('StaticSite with the single-page app fallback', () => {
  const INDEX = '<!doctype html><title>spa</title><div id="root"></div>';
  let base: string;
  let spa: TestServer;
  let off: TestServer;

  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'atoll-static-site-'));
    await writeFiles(join(base, 'site'), {
      'index.html': INDEX,
      'assets/index-CQ-NvqXt.js': 'console.log(1)',
      'docs/index.html': 'docs',
      'about.html': 'about',
      '404.html': 'not here',
    });
    await writeFile(join(base, 'secret.txt'), SECRET);
    spa = await startServer({ root: join(base, 'site'), spaFallback: true });
    off = await startServer({ root: join(base, 'site') });
  });

  after(async () => {
    await spa.close();
    await off.close();
    await Promise.all([...spa.served, ...off.served]);
    assert.deepEqual(spa.errors, []);
    await rm(base, { recursive: true, force: true });
  });

  it("answers a deep link that is no file with the app's index.html, for GET and HEAD", async () => {
    for (const path of ['/users/42', '/users/42/', '/settings?tab=2', '/a/b/c']) {
      const reply = await request(spa.port, path);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.body.toString(), INDEX, path);
      assert.match(String(reply.headers['content-type']), /^text\/html/);
      assert.equal(reply.headers['cache-control'], REVALIDATE);
    }
    const head = await request(spa.port, '/users/42', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(INDEX)));
    assert.equal((await request(spa.port, '/users/42', { method: 'POST' })).status, 405);
  });

  it('keeps files, pretty URLs and folders first, and a missing asset 404', async () => {
    assert.equal((await request(spa.port, '/assets/index-CQ-NvqXt.js')).body.toString(), 'console.log(1)');
    assert.equal((await request(spa.port, '/about')).body.toString(), 'about');
    assert.equal((await request(spa.port, '/docs')).status, 301);
    const missingAsset = await request(spa.port, '/assets/index-gone.js');
    assert.equal(missingAsset.status, 404);
    assert.equal(missingAsset.body.toString(), 'not here');
    assert.equal((await request(spa.port, '/favicon.ico')).status, 404);
  });

  it('never serves a dotfile or a path outside the root in place of index.html', async () => {
    assert.equal((await request(spa.port, '/.env')).status, 404);
    const traversal = await request(spa.port, '/%2e%2e/secret');
    assert.notEqual(traversal.body.toString(), SECRET);
  });

  it('answers deep links 404 when the fallback is off', async () => {
    const reply = await request(off.port, '/users/42');
    assert.equal(reply.status, 404);
    assert.equal(reply.body.toString(), 'not here');
  });
});

describe('StaticSite under a basePath (a Next.js static export)', () => {
  let base: string;
  let site: TestServer;

  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'atoll-static-site-'));
    await writeFiles(join(base, 'out'), {
      'index.html': 'home',
      'target.html': 'target',
      'guides/index.html': 'guides',
      '_next/static/chunks/app-0a1b2c3d.js': 'chunk',
      '404.html': 'not here',
    });
    await writeFile(join(base, 'secret.txt'), SECRET);
    site = await startServer({ root: join(base, 'out'), basePath: '/docs' });
  });

  after(async () => {
    await site.close();
    await Promise.all(site.served);
    assert.deepEqual(site.errors, []);
    await rm(base, { recursive: true, force: true });
  });

  it('serves the files under the basePath, the prefix itself as the home page', async () => {
    for (const [path, body] of [
      ['/docs', 'home'],
      ['/docs/', 'home'],
      ['/docs/target', 'target'],
      ['/docs/guides/', 'guides'],
      ['/docs/_next/static/chunks/app-0a1b2c3d.js', 'chunk'],
    ] as const) {
      const reply = await request(site.port, path);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.body.toString(), body, path);
    }
    assert.match(
      String(
        (await request(site.port, '/docs/_next/static/chunks/app-0a1b2c3d.js')).headers['cache-control'],
      ),
      /immutable/,
    );
  });

  it('redirects a folder to its slash under the basePath, query kept', async () => {
    const reply = await request(site.port, '/docs/guides?x=1');
    assert.equal(reply.status, 301);
    assert.equal(reply.headers.location, '/docs/guides/?x=1');
  });

  it("answers 404 with the site's page outside the basePath, and never a path outside the root", async () => {
    for (const path of ['/', '/target', '/_next/static/chunks/app-0a1b2c3d.js', '/docsx', '/docsx/target']) {
      const reply = await request(site.port, path);
      assert.equal(reply.status, 404, path);
      assert.equal(reply.body.toString(), 'not here', path);
    }
    assert.notEqual((await request(site.port, '/docs/%2e%2e/secret.txt')).body.toString(), SECRET);
    assert.notEqual((await request(site.port, '/docs/../secret.txt')).body.toString(), SECRET);
  });

  it('refuses a basePath Next.js would refuse', () => {
    for (const basePath of ['docs', '/docs/', '/', '/a?b'])
      assert.throws(() => new StaticSite({ root: base, basePath }), RangeError, basePath);
  });
});

describe('chooseCacheControl', () => {
  const cases: [string, string][] = [
    ['index.html', REVALIDATE],
    ['/docs/index.html', REVALIDATE],
    ['style.css', REVALIDATE],
    ['_astro/index.CZ3xKiuE.css', IMMUTABLE],
    ['/_astro/hoisted.BvIpcaKp.js', IMMUTABLE],
    ['_astro/page.CZ3xKiuE.html', REVALIDATE],
    // Astro's short hashes with few case changes (found by test/frameworks on the basics starter).
    ['_astro/background.BPKAcmfN.svg', IMMUTABLE],
    ['_astro/astro.DQVEDXAR.svg', IMMUTABLE],
    ['_app/immutable/entry/start.BuQ6ZDtC.js', IMMUTABLE],
    ['_nuxt/entry.CqX1zyab.js', IMMUTABLE],
    ['_astro/background.svg', REVALIDATE],
    ['assets/photo.BPKAcmfN.svg', REVALIDATE],
    ['_next/static/chunks/main-2f3a9c0b1d2e3f40.js', IMMUTABLE],
    ['_next/static/chunks/pages/_app-9a8b7c6d5e4f3a2b.js', IMMUTABLE],
    ['_next/static/css/1a2b3c4d5e6f7a8b.css', IMMUTABLE],
    ['_next/static/media/font.a1b2c3d4.woff2', IMMUTABLE],
    ['_next/static/aBcD1234_efGH5678-ijk/_buildManifest.js', IMMUTABLE],
    // Turbopack's chunk names (Next.js 16.4 static export, test/hosting/next-features.test.ts).
    ['_next/static/chunks/3qfy96eoyh-ek.js', IMMUTABLE],
    ['_next/static/chunks/0cz1d0mv5g_q7.js', IMMUTABLE],
    ['_next/static/chunks/1vgmu4ugcdqii.js', IMMUTABLE],
    ['_next/static/chunks/turbopack-2u1d16houkiyo.js', IMMUTABLE],
    ['_next/static/chunks/webpack.js', REVALIDATE],
    ['_astro/background2.svg', REVALIDATE],
    ['assets/index-CQ-NvqXt.js', IMMUTABLE],
    ['assets/index-BnV1W5Ap.css', IMMUTABLE],
    ['assets/logo.png', REVALIDATE],
    ['assets/hero-homePage.png', REVALIDATE],
    ['assets/slide-image001.png', REVALIDATE],
    ['assets/logo-20240101.png', REVALIDATE],
    ['assets/SomeComponentName.png', REVALIDATE],
    ['assets/my-cool-picture.jpg', REVALIDATE],
    ['js/app-3f2a1b4c.js', REVALIDATE],
    ['docs/assets/index-CQ-NvqXt.js', REVALIDATE],
  ];
  for (const [path, expected] of cases) {
    it(`${path} → ${expected}`, () => {
      assert.equal(chooseCacheControl(path), expected);
    });
  }
});

async function isOpen(file: string): Promise<boolean> {
  for (const descriptor of await readdir('/proc/self/fd')) {
    try {
      if ((await readlink(join('/proc/self/fd', descriptor))) === file) return true;
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return false;
}
