/**
 * Static sites as the edge serves them: files from a deployment's folder, with a bounded memory cache,
 * precompressed copies, immutable caching for hashed assets, ranges and conditional requests.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, type Stats } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { extname, join, posix, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LRUCache } from 'lru-cache';
import mime from 'mime-types';
import parseRange from 'range-parser';
import { answerWithFields } from './header-block.js';

export interface StaticSiteOptions {
  /** The unpacked deployment folder. It must exist and must never change while it is served. */
  readonly root: string;
  /** Bound on the file bodies this site keeps in memory. Default 32 MiB. */
  readonly memoryBytes?: number;
  /** Files up to this size are kept in memory after their first read; larger ones stream. Default 256 KiB. */
  readonly maxMemoryFileBytes?: number;
  /** Request paths whose lookup is remembered, found and missing counted apart. Default 10,000 each. */
  readonly maxPaths?: number;
  /** Told about server-side failures (I/O errors); never about client mistakes or disconnects. */
  readonly onError?: (error: unknown) => void;
  /**
   * A single-page app: a path that is no file and has no file extension in its last segment gets the
   * root's index.html with 200, so the app's router answers deep links. A missing asset stays 404.
   */
  readonly spaFallback?: boolean;
  /**
   * The URL prefix the site lives under ('' or unset: none), as a Next.js static export with `basePath`
   * expects: `/docs/about` is the root's `about.html`, and no path outside the prefix is the site's.
   */
  readonly basePath?: string;
}

/** One stored representation of a file: the file itself or a precompressed copy of it. */
interface Variant {
  /** Real absolute path, also the key of its body in the memory cache. */
  readonly file: string;
  readonly size: number;
  readonly etag: string;
  /** Modification time in whole seconds (as ms), the precision Last-Modified carries. */
  readonly modifiedMs: number;
  readonly keepInMemory: boolean;
  readonly contentType: string;
  readonly encoding: 'br' | 'gzip' | undefined;
  readonly hasAlternatives: boolean;
  /** Every field of a 200 but Content-Length, shared by 206 answers. */
  readonly representationHeaders: OutgoingHttpHeaders;
  readonly okHeaders: OutgoingHttpHeaders;
  /** okHeaders as the flat name, value… list res.writeHead takes without walking an object (the hot path). */
  readonly okHeaderList: string[];
  readonly notModifiedHeaders: OutgoingHttpHeaders;
}

interface Resource {
  readonly identity: Variant;
  readonly br: Variant | undefined;
  readonly gzip: Variant | undefined;
}

type Route =
  | { readonly kind: 'file'; readonly resource: Resource }
  | { readonly kind: 'redirect'; readonly location: string };

type Found = FoundFile | { readonly kind: 'directory' };

interface FoundFile {
  readonly kind: 'file';
  /** Real absolute path: symlinks resolved and checked to stay inside the root. */
  readonly real: string;
  readonly stats: Stats;
}

interface AcceptedEncodings {
  readonly br: number;
  readonly gzip: number;
}

const REVALIDATE = 'public, max-age=0, must-revalidate';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const OCTET_STREAM = 'application/octet-stream';
/** Folders where Next.js, Astro and Vite put the assets they name after their content. */
const HASHED_ASSET_FOLDERS = ['_next/static/', '_astro/', '_app/immutable/', '_nuxt/', 'assets/'];
/**
 * Folders only a framework's build writes (a user's own files go elsewhere): there a short hash
 * such as Astro's `BPKAcmfN` (8 characters, few case changes) is still a hash.
 */
const BUILD_ONLY_FOLDERS = new Set(['_next/static/', '_astro/', '_app/immutable/', '_nuxt/']);

const DEFAULT_MEMORY_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_MEMORY_FILE_BYTES = 256 * 1024;
const DEFAULT_MAX_PATHS = 10_000;
/** Longer than any path a file system stores (PATH_MAX); answered 404 without a lookup. */
const MAX_PATH_LENGTH = 4096;
/** Keys, a route's metadata and the LRU's own bookkeeping, roughly. */
const PATH_ENTRY_OVERHEAD_BYTES = 512;

/** A request path that must be decoded or normalized, or may name a dotfile; anything else is used as is. */
const NEEDS_NORMALIZING = /%|\/\.|\/\/|\0/;
const HEADER_SAFE = /^[\x21-\x7e]*$/;
const HEADER_UNSAFE_CHARACTER = /[^\x21-\x7e]/g;
const BASE64URL_TOKEN = /^[\w-]+$/;
const HEX_TOKEN = /^[0-9a-f]+$/;

/** Errors that mean "no such file here"; anything else is a server fault. */
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP', 'EACCES', 'EPERM']);
/** The visitor closed the connection: nothing to report and nobody left to answer. */
const DISCONNECT_CODES = new Set([
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ECONNRESET',
  'EPIPE',
]);

const DEFAULT_NOT_FOUND_BODY = Buffer.from(
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>' +
    '<body><h1>404 Not Found</h1></body></html>\n',
);

/** Browsers send a handful of distinct values; parsing each once keeps the hot path to a Map lookup. */
const acceptEncodingMemo = new Map<string, AcceptedEncodings>();
const ACCEPT_ENCODING_MEMO_SIZE = 256;
const ACCEPT_ENCODING_MEMO_MAX_LENGTH = 256;
const IDENTITY_ONLY: AcceptedEncodings = { br: 0, gzip: 0 };

/**
 * Serves one immutable static deployment folder the way nginx would, with index.html, pretty
 * `.html` URLs, precompressed `.br`/`.gz` variants, validators, byte ranges and a 404 page.
 *
 * Because the folder never changes, every lookup (including misses) is remembered, ETags are
 * computed once per file, and small files are answered from memory with precomputed headers.
 * Headers the caller set with `res.setHeader` before calling serve() are kept (writeHead merges them).
 */
export class StaticSite {
  readonly #configuredRoot: string;
  /** The root's real path once #ensureRoot() resolved it; lookups run only after that. */
  #root = '';
  #rootPrefix = '';
  #rootReady: Promise<void> | undefined;
  readonly #maxMemoryFileBytes: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #spaFallback: boolean;
  readonly #basePath: string;
  readonly #routes: LRUCache<string, Route>;
  /** Apart from #routes so that visitors probing random paths cannot evict the site's real files. */
  readonly #missing: LRUCache<string, true>;
  readonly #bodies: LRUCache<string, Buffer>;
  /** Lookups under way, so that a burst of first requests for one path reads and hashes it once. */
  readonly #pending = new Map<string, Promise<Route | undefined>>();
  #notFoundPage: Promise<Resource | undefined> | undefined;

  /**
   * Does no I/O: the route table builds sites synchronously, possibly before the folder is in
   * place. A root that is missing or not a folder surfaces per request as a 500 and onError.
   */
  constructor(options: StaticSiteOptions) {
    const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
    const maxMemoryFileBytes = options.maxMemoryFileBytes ?? DEFAULT_MAX_MEMORY_FILE_BYTES;
    const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
    if (!Number.isSafeInteger(memoryBytes) || memoryBytes <= 0) {
      throw new RangeError(`memoryBytes must be a positive integer, got ${memoryBytes}`);
    }
    if (!Number.isSafeInteger(maxMemoryFileBytes) || maxMemoryFileBytes < 0) {
      throw new RangeError(`maxMemoryFileBytes must be a non-negative integer, got ${maxMemoryFileBytes}`);
    }
    if (!Number.isSafeInteger(maxPaths) || maxPaths <= 0) {
      throw new RangeError(`maxPaths must be a positive integer, got ${maxPaths}`);
    }
    this.#configuredRoot = resolve(options.root);
    this.#maxMemoryFileBytes = maxMemoryFileBytes;
    this.#onError = options.onError;
    this.#spaFallback = options.spaFallback ?? false;
    const basePath = options.basePath ?? '';
    if (basePath !== '' && !/^\/[^?#]*[^/?#]$/.test(basePath))
      throw new RangeError(`basePath must start with / and not end with one, got ${basePath}`);
    this.#basePath = basePath;
    const measurePath = (_value: unknown, key: string): number => key.length * 2 + PATH_ENTRY_OVERHEAD_BYTES;
    this.#routes = new LRUCache<string, Route>({
      max: maxPaths,
      maxSize: maxPaths * 2 * PATH_ENTRY_OVERHEAD_BYTES,
      sizeCalculation: measurePath,
    });
    this.#missing = new LRUCache<string, true>({
      max: maxPaths,
      maxSize: maxPaths * PATH_ENTRY_OVERHEAD_BYTES,
      sizeCalculation: measurePath,
    });
    this.#bodies = new LRUCache<string, Buffer>({
      maxSize: memoryBytes,
      sizeCalculation: (body) => Math.max(1, body.length),
    });
  }

  /**
   * Answers a GET or HEAD for `requestTarget` (req.url: path and query). Never rejects: client
   * mistakes get a 4xx, server faults a 500 (or a cut connection once headers are out) and onError.
   * `nowMs`: the time now (serveFromMemory).
   */
  serve(req: IncomingMessage, res: ServerResponse, requestTarget: string, nowMs: number): Promise<void> {
    try {
      if (this.#serveKnown(req, res, requestTarget, nowMs) !== NOT_FROM_MEMORY) return SERVED;
    } catch (error) {
      this.#fail(req, res, error);
      return SERVED;
    }
    return this.#serveAny(req, res, requestTarget);
  }

  /**
   * The common case alone (see #serveKnown), for a caller that counts what it sent: the body bytes written
   * (0 for a HEAD), or NOT_FROM_MEMORY with nothing written, and serve() then answers the request. Never
   * throws: a fault leaves the request to serve(), which meets it again and answers it.
   */
  serveFromMemory(req: IncomingMessage, res: ServerResponse, requestTarget: string, nowMs: number): number {
    try {
      return this.#serveKnown(req, res, requestTarget, nowMs);
    } catch {
      return NOT_FROM_MEMORY;
    }
  }

  async #serveAny(req: IncomingMessage, res: ServerResponse, requestTarget: string): Promise<void> {
    try {
      await this.#handle(req, res, requestTarget);
    } catch (error) {
      this.#fail(req, res, error);
    }
  }

  /**
   * The common case, answered without a promise or an await: a plain GET or HEAD (no Range, no
   * precondition that holds) of a file already looked up whose body is in memory. The same answer
   * #handle gives; whatever else is left to it. The body bytes written when answered, else NOT_FROM_MEMORY
   * with nothing written (the header block is only written by end(), and the fields were checked when the
   * file was looked up, so writeHead cannot throw halfway).
   */
  #serveKnown(req: IncomingMessage, res: ServerResponse, requestTarget: string, nowMs: number): number {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !requestTarget.startsWith('/')) return NOT_FROM_MEMORY;
    const queryStart = requestTarget.indexOf('?');
    const key = this.#withoutBasePath(
      normalizeRequestPath(queryStart === -1 ? requestTarget : requestTarget.slice(0, queryStart)),
    );
    if (typeof key !== 'string') return NOT_FROM_MEMORY;
    const route = this.#routes.get(key);
    if (route?.kind !== 'file') return NOT_FROM_MEMORY;
    const headers = req.headers;
    if (headers.range !== undefined) return NOT_FROM_MEMORY;
    const variant = chooseVariant(route.resource, headers['accept-encoding']);
    if (!variant.keepInMemory || evaluatePreconditions(headers, variant) !== 200) return NOT_FROM_MEMORY;
    const body = this.#bodies.get(variant.file);
    if (body === undefined) return NOT_FROM_MEMORY;
    // Its header block made by node once a second (header-block.ts).
    if (method === 'HEAD') {
      answerWithFields(res, 200, variant.okHeaderList, undefined, nowMs);
      return 0;
    }
    answerWithFields(res, 200, variant.okHeaderList, body, nowMs);
    return body.length;
  }

  async #handle(req: IncomingMessage, res: ServerResponse, requestTarget: string): Promise<void> {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') {
      // RFC 9110 §15.5.6: a 405 must list the methods the resource supports.
      sendText(res, 405, 'Method Not Allowed', false, { Allow: 'GET, HEAD' });
      return;
    }
    const isHead = method === 'HEAD';
    const target = splitTarget(requestTarget);
    if (target === undefined) {
      sendText(res, 400, 'Bad Request', isHead);
      return;
    }
    const key = this.#withoutBasePath(normalizeRequestPath(target.pathname));
    if (key === 400) {
      sendText(res, 400, 'Bad Request', isHead);
      return;
    }
    if (key === 404) {
      await this.#sendNotFound(req, res, isHead);
      return;
    }
    let route = await this.#route(key);
    if (route === undefined && this.#spaFallback && !looksLikeAFile(key)) route = await this.#route('/');
    if (route === undefined) {
      await this.#sendNotFound(req, res, isHead);
    } else if (route.kind === 'redirect') {
      sendRedirect(res, this.#basePath + route.location + encodeUnsafeCharacters(target.query), isHead);
    } else {
      await this.#sendResource(req, res, route.resource, isHead);
    }
  }

  /** A normalized request path as a path of the root: without the basePath; 404 outside it. */
  #withoutBasePath(key: string | 400 | 404): string | 400 | 404 {
    const basePath = this.#basePath;
    if (basePath === '' || typeof key !== 'string') return key;
    if (key === basePath) return '/';
    return key.startsWith(`${basePath}/`) ? key.slice(basePath.length) : 404;
  }

  async #route(key: string): Promise<Route | undefined> {
    const route = this.#routes.get(key);
    if (route !== undefined || this.#missing.has(key)) return route;
    return this.#lookUpOnce(key);
  }

  #lookUpOnce(key: string): Promise<Route | undefined> {
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = this.#lookUp(key)
        .then((route) => {
          if (route === undefined) this.#missing.set(key, true);
          else this.#routes.set(key, route);
          return route;
        })
        .finally(() => {
          this.#pending.delete(key);
        });
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Not remembered when it fails, so a folder still being unpacked is found once it is there. */
  #ensureRoot(): Promise<void> {
    this.#rootReady ??= this.#resolveRoot().catch((error: unknown) => {
      this.#rootReady = undefined;
      throw error;
    });
    return this.#rootReady;
  }

  async #resolveRoot(): Promise<void> {
    // The real path, so that containment checks compare like with like when the deployment
    // folder itself is reached through a symlink.
    const root = await realpath(this.#configuredRoot);
    if (!(await stat(root)).isDirectory()) throw new Error(`static site root ${root} is not a folder`);
    this.#root = root;
    this.#rootPrefix = root.endsWith(sep) ? root : root + sep;
  }

  /** The order of nginx's `try_files $uri $uri.html $uri/ =404`. */
  async #lookUp(key: string): Promise<Route | undefined> {
    await this.#ensureRoot();
    const relative = key.slice(1);
    if (key.endsWith('/')) return this.#lookUpFile(relative + 'index.html');
    const exact = await this.#inspect(relative);
    if (exact?.kind === 'file') return { kind: 'file', resource: await this.#loadResource(relative, exact) };
    // Next.js `output: 'export'` writes /about as about.html.
    const route = await this.#lookUpFile(relative + '.html');
    if (route !== undefined) return route;
    if (exact?.kind === 'directory' && (await this.#inspect(relative + '/index.html'))?.kind === 'file') {
      // Relative links inside docs/index.html resolve against /docs/, not /; this is what nginx
      // and Netlify do. A folder without index.html is answered 404 at once rather than after a hop.
      return { kind: 'redirect', location: encodePath(key) + '/' };
    }
    return undefined;
  }

  async #lookUpFile(relative: string): Promise<Route | undefined> {
    const found = await this.#inspect(relative);
    if (found?.kind !== 'file') return undefined;
    return { kind: 'file', resource: await this.#loadResource(relative, found) };
  }

  /**
   * What a relative path names, or undefined when it must be treated as absent: not there, not a
   * regular file or folder (a FIFO would hang a reader), or a symlink that resolves outside the
   * root or to a dotfile.
   */
  async #inspect(relative: string): Promise<Found | undefined> {
    const absolute = join(this.#root, relative);
    if (!this.#contains(absolute)) return undefined;
    try {
      const stats = await stat(absolute);
      if (stats.isDirectory()) return { kind: 'directory' };
      if (!stats.isFile()) return undefined;
      const real = await realpath(absolute);
      if (!this.#contains(real) || hasHiddenSegment(real.slice(this.#rootPrefix.length).split(sep))) {
        return undefined;
      }
      return { kind: 'file', real, stats };
    } catch (error) {
      if (MISSING_CODES.has(errorCode(error))) return undefined;
      throw error;
    }
  }

  #contains(absolute: string): boolean {
    return absolute === this.#root || absolute.startsWith(this.#rootPrefix);
  }

  async #loadResource(relative: string, found: FoundFile): Promise<Resource> {
    const [brFound, gzipFound] = await Promise.all([
      this.#inspect(relative + '.br'),
      this.#inspect(relative + '.gz'),
    ]);
    const describe = {
      contentType: mime.contentType(extname(relative)) || OCTET_STREAM,
      cacheControl: chooseCacheControl(relative),
      hasAlternatives: brFound?.kind === 'file' || gzipFound?.kind === 'file',
    };
    const [identity, br, gzip] = await Promise.all([
      this.#loadVariant(found, describe, undefined),
      brFound?.kind === 'file' ? this.#loadVariant(brFound, describe, 'br') : undefined,
      gzipFound?.kind === 'file' ? this.#loadVariant(gzipFound, describe, 'gzip') : undefined,
    ]);
    return { identity, br, gzip };
  }

  async #loadVariant(
    found: FoundFile,
    describe: { contentType: string; cacheControl: string; hasAlternatives: boolean },
    encoding: 'br' | 'gzip' | undefined,
  ): Promise<Variant> {
    let size = found.stats.size;
    const keepInMemory = size <= this.#maxMemoryFileBytes;
    let etag: string;
    if (keepInMemory) {
      const body = await readFile(found.real);
      size = body.length;
      etag = formatEtag(createHash('sha256').update(body));
      this.#bodies.set(found.real, body);
    } else {
      etag = await hashFile(found.real);
    }
    const modifiedMs = Math.floor(found.stats.mtimeMs / 1000) * 1000;
    const lastModified = new Date(modifiedMs).toUTCString();
    const validators: OutgoingHttpHeaders = {
      ETag: etag,
      'Last-Modified': lastModified,
      'Cache-Control': describe.cacheControl,
    };
    if (describe.hasAlternatives) validators.Vary = 'Accept-Encoding';
    const representationHeaders: OutgoingHttpHeaders = {
      'Content-Type': describe.contentType,
      'Accept-Ranges': 'bytes',
      ...validators,
    };
    if (encoding !== undefined) representationHeaders['Content-Encoding'] = encoding;
    return {
      file: found.real,
      size,
      etag,
      modifiedMs,
      keepInMemory,
      contentType: describe.contentType,
      encoding,
      hasAlternatives: describe.hasAlternatives,
      representationHeaders,
      okHeaders: { ...representationHeaders, 'Content-Length': String(size) },
      okHeaderList: Object.entries({ ...representationHeaders, 'Content-Length': String(size) }).flatMap(
        // Lower-case names: node:http lower-cases each name it writes to recognise its own fields,
        // which allocates for any other.
        ([name, value]) => [name.toLowerCase(), String(value)],
      ),
      // RFC 9110 §15.4.5: a 304 carries the fields a 200 would have that let caches update, no body metadata.
      notModifiedHeaders: validators,
    };
  }

  async #sendResource(
    req: IncomingMessage,
    res: ServerResponse,
    resource: Resource,
    isHead: boolean,
  ): Promise<void> {
    const headers = req.headers;
    // RFC 9110 §14.2: GET is the only method for which range handling is defined.
    const range = isHead ? undefined : headers.range;
    // A ranged request is answered from the identity file. nginx applies ranges to the .gz file
    // instead, but browsers send Range with Accept-Encoding: gzip, br for media and pdf.js, and a
    // slice from the middle of a compressed stream cannot be decoded on its own. If-Range stays
    // sound: the identity file has its own ETag, so a resume of an encoded download gets a full 200.
    const variant =
      range === undefined ? chooseVariant(resource, headers['accept-encoding']) : resource.identity;
    const precondition = evaluatePreconditions(headers, variant);
    if (precondition === 304) {
      res.writeHead(304, variant.notModifiedHeaders);
      res.end();
      return;
    }
    if (precondition === 412) {
      sendText(res, 412, 'Precondition Failed', isHead);
      return;
    }
    if (range?.startsWith('bytes=') === true && honoursIfRange(singleValue(headers['if-range']), variant)) {
      const ranges = parseRange(variant.size, range, { combine: true });
      if (ranges === -1) {
        // RFC 9110 §15.5.17: tell the client the current length so it can ask again.
        res.writeHead(416, {
          'Content-Range': `bytes */${variant.size}`,
          'Content-Length': '0',
          'Accept-Ranges': 'bytes',
        });
        res.end();
        return;
      }
      // Malformed (-2) is ignored as RFC 9110 §14.2 allows; several ranges get the whole file,
      // which §14.2 also allows and which spares us multipart/byteranges.
      const only = ranges === -2 ? undefined : ranges[0];
      if (only !== undefined && ranges !== -2 && ranges.length === 1) {
        const partialHeaders: OutgoingHttpHeaders = {
          ...variant.representationHeaders,
          'Content-Range': `bytes ${only.start}-${only.end}/${variant.size}`,
          'Content-Length': String(only.end - only.start + 1),
        };
        await this.#sendBody(res, variant, 206, partialHeaders, false, only.start, only.end);
        return;
      }
    }
    await this.#sendBody(res, variant, 200, variant.okHeaders, isHead, 0, variant.size - 1);
  }

  /** Sends bytes start..end (inclusive) of the variant; the body is read before headers go out, so a read failure is still a clean 500. */
  async #sendBody(
    res: ServerResponse,
    variant: Variant,
    status: number,
    headers: OutgoingHttpHeaders,
    isHead: boolean,
    start: number,
    end: number,
  ): Promise<void> {
    if (isHead) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    if (variant.keepInMemory) {
      const body = this.#bodies.get(variant.file) ?? (await this.#reloadBody(variant));
      res.writeHead(status, headers);
      res.end(start === 0 && end === body.length - 1 ? body : body.subarray(start, end + 1));
      return;
    }
    await this.#streamFile(res, variant.file, status, headers, start, end);
  }

  async #reloadBody(variant: Variant): Promise<Buffer> {
    const body = await readFile(variant.file);
    if (body.length !== variant.size) {
      throw new Error(`${variant.file} changed while served; a deployment folder must never change`);
    }
    this.#bodies.set(variant.file, body);
    return body;
  }

  async #streamFile(
    res: ServerResponse,
    file: string,
    status: number,
    headers: OutgoingHttpHeaders,
    start: number,
    end: number,
  ): Promise<void> {
    const stream = createReadStream(file, { start, end });
    try {
      await once(stream, 'open');
    } catch (error) {
      stream.destroy();
      throw error;
    }
    res.writeHead(status, headers);
    try {
      // pipeline destroys the file stream when the response closes early, so a visitor who
      // leaves mid-download releases the descriptor at once.
      await pipeline(stream, res);
    } catch (error) {
      if (!DISCONNECT_CODES.has(errorCode(error))) this.#report(error);
    }
  }

  async #sendNotFound(req: IncomingMessage, res: ServerResponse, isHead: boolean): Promise<void> {
    const page = await this.#loadNotFoundPage();
    if (page === undefined) {
      sendBuffer(
        res,
        404,
        notFoundHeaders('text/html; charset=utf-8', DEFAULT_NOT_FOUND_BODY.length),
        DEFAULT_NOT_FOUND_BODY,
        isHead,
      );
      return;
    }
    const variant = chooseVariant(page, req.headers['accept-encoding']);
    const headers = notFoundHeaders(variant.contentType, variant.size);
    if (variant.hasAlternatives) headers.Vary = 'Accept-Encoding';
    if (variant.encoding !== undefined) headers['Content-Encoding'] = variant.encoding;
    await this.#sendBody(res, variant, 404, headers, isHead, 0, variant.size - 1);
  }

  #loadNotFoundPage(): Promise<Resource | undefined> {
    if (this.#notFoundPage === undefined) {
      const loading = this.#ensureRoot()
        .then(() => this.#inspect('404.html'))
        .then((found) => (found?.kind === 'file' ? this.#loadResource('404.html', found) : undefined));
      // A failed read must not stick for the life of the site, nor turn every 404 into a 500.
      this.#notFoundPage = loading.catch((error: unknown) => {
        this.#notFoundPage = undefined;
        this.#report(error);
        return undefined;
      });
    }
    return this.#notFoundPage;
  }

  #fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    this.#report(error);
    try {
      // Once headers are out, only a cut connection tells the client the body is incomplete.
      if (res.headersSent) res.destroy();
      else sendText(res, 500, 'Internal Server Error', req.method === 'HEAD');
    } catch {
      res.destroy();
    }
  }

  #report(error: unknown): void {
    try {
      this.#onError?.(error);
    } catch {
      // A failing logger must not turn into an unhandled rejection on the request path.
    }
  }
}

/** Whether a request path's last segment has a file extension (`/app.js`, `/a/b.json`): an asset, not a route. */
function looksLikeAFile(key: string): boolean {
  const last = key.slice(key.lastIndexOf('/') + 1);
  return last.lastIndexOf('.') > 0;
}

/**
 * Cache-Control for a file of the site, by its path relative to the root (a leading `/` is
 * ignored). HTML and anything not provably content-addressed must be revalidated, because the next
 * deployment serves different bytes under the same URL. Only files in the asset folders of Next.js
 * (`_next/static/`), Astro (`_astro/`), SvelteKit (`_app/immutable/`), Nuxt (`_nuxt/`) and Vite (`assets/`)
 * with a content hash in their path may be cached for a year: a new build gives changed content a new name.
 */
export function chooseCacheControl(relativePath: string): string {
  const relative = relativePath.startsWith('/') ? relativePath.slice(1) : relativePath;
  if (/\.html?$/i.test(relative)) return REVALIDATE;
  const folder = HASHED_ASSET_FOLDERS.find((prefix) => relative.startsWith(prefix));
  if (folder === undefined) return REVALIDATE;
  const segments = relative.slice(folder.length).split('/');
  const buildOnly = BUILD_ONLY_FOLDERS.has(folder);
  const hashed = segments.some((segment, index) =>
    hasHashToken(segment, index === segments.length - 1, buildOnly),
  );
  return hashed ? IMMUTABLE : REVALIDATE;
}

/**
 * Whether a path segment carries a content hash: `index-CQ-NvqXt.js` (Vite), `page.CZ3xKiuE.css`
 * (Astro), `main-2f3a9c0b1d2e3f40.js`, `1a2b3c4d5e6f7a8b.css` or a build-id folder (Next.js).
 * Hashes are told from words by how often the character class changes, so `hero-homePage.png`,
 * `slide-image001.png` or `logo-20240101.png` a person put in assets/ are not pinned for a year.
 * The price is that about one hash in ten looks too regular and is merely revalidated.
 */
function hasHashToken(segment: string, isFileName: boolean, buildOnly: boolean): boolean {
  const dot = isFileName ? segment.lastIndexOf('.') : -1;
  const stem = dot > 0 ? segment.slice(0, dot) : segment;
  return stem.split('.').some((part, index) => {
    if (index > 0 ? looksLikeHash(part, buildOnly) : looksLikeWholeNameHash(part, buildOnly)) return true;
    // Base64url hashes may contain '-', so try every suffix that starts after a dash.
    for (let dash = part.indexOf('-'); dash !== -1; dash = part.indexOf('-', dash + 1)) {
      if (looksLikeHash(part.slice(dash + 1), buildOnly)) return true;
    }
    return false;
  });
}

/** In a folder only builds write, every name part of 8 or more characters is a hash (`BPKAcmfN`, `DQVEDXAR`). */
function looksLikeHash(token: string, buildOnly: boolean): boolean {
  return token.length >= 8 && BASE64URL_TOKEN.test(token) && (buildOnly || countClassChanges(token) >= 3);
}

/** A whole name is held to a stricter test: `SomeComponentName.png` is a word, not a hash. */
function looksLikeWholeNameHash(token: string, buildOnly: boolean): boolean {
  if (token.length >= 8 && HEX_TOKEN.test(token)) return countClassChanges(token) >= 3;
  // Turbopack's chunk names in Next.js 15 and 16 (`3qfy96eoyh-ek.js`, `0cz1d0mv5g_q7.js`): base64url mixing
  // digits and letters, where only a build writes files.
  if (buildOnly && token.length >= 8 && BASE64URL_TOKEN.test(token) && countClassChanges(token) >= 3)
    return true;
  // Next.js build ids (nanoid): long, with digits and both cases.
  return (
    token.length >= 16 &&
    BASE64URL_TOKEN.test(token) &&
    /\d/.test(token) &&
    /[a-z]/.test(token) &&
    /[A-Z]/.test(token)
  );
}

function countClassChanges(token: string): number {
  let changes = 0;
  let previous = -1;
  for (let index = 0; index < token.length; index += 1) {
    const code = token.charCodeAt(index);
    const current =
      code >= 48 && code <= 57 ? 0 : code >= 97 && code <= 122 ? 1 : code >= 65 && code <= 90 ? 2 : 3;
    if (previous !== -1 && current !== previous) changes += 1;
    previous = current;
  }
  return changes;
}

/** Path and query of a request target; undefined when it has neither origin-form nor absolute-form. */
const SERVED: Promise<void> = Promise.resolve();

/** StaticSite.serveFromMemory's answer when the request was not answered from memory. */
export const NOT_FROM_MEMORY = -1;

function splitTarget(requestTarget: string): { pathname: string; query: string } | undefined {
  let rest = requestTarget;
  if (!rest.startsWith('/')) {
    // RFC 9112 §3.2.2: a server must accept the absolute-form, which proxies send.
    const origin = /^https?:\/\/[^/?#]*/i.exec(rest);
    if (origin === null) return undefined;
    rest = rest.slice(origin[0].length);
    if (!rest.startsWith('/')) rest = '/' + rest;
  }
  const queryStart = rest.indexOf('?');
  return queryStart === -1
    ? { pathname: rest, query: '' }
    : { pathname: rest.slice(0, queryStart), query: rest.slice(queryStart) };
}

/**
 * The decoded, normalized request path (it starts with `/`) used both as cache key and to find the
 * file, or the status to answer. Decoding happens exactly once, so `%252e%252e` stays a literal
 * name; `..` cannot climb above `/` after posix normalization; dotfiles (`.env`, `.git/`) are
 * hidden, except `/.well-known/` (RFC 8615).
 */
function normalizeRequestPath(pathname: string): string | 400 | 404 {
  if (pathname.length > MAX_PATH_LENGTH) return 404;
  if (!NEEDS_NORMALIZING.test(pathname)) return pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return 400;
  }
  if (decoded.includes('\0')) return 400;
  const normalized = posix.normalize(decoded);
  const segments = normalized.split('/');
  if (segments.includes('..') || hasHiddenSegment(segments.slice(1))) return 404;
  return normalized;
}

/** Segments of a path relative to the root. */
function hasHiddenSegment(segments: readonly string[]): boolean {
  return segments.some(
    (segment, index) => segment.startsWith('.') && !(index === 0 && segment === '.well-known'),
  );
}

function encodePath(decodedPath: string): string {
  // Per segment, so a folder named `\evil.com` cannot become a protocol-relative Location.
  return decodedPath
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** Node refuses control characters in header values; keep the query's bytes but make them header-safe. */
function encodeUnsafeCharacters(text: string): string {
  if (HEADER_SAFE.test(text)) return text;
  return text.replace(HEADER_UNSAFE_CHARACTER, (character) => {
    const code = character.charCodeAt(0);
    // Node hands request bytes over as latin1, so one character below 256 is one byte.
    return code < 256
      ? '%' + code.toString(16).toUpperCase().padStart(2, '0')
      : encodeURIComponent(character);
  });
}

function chooseVariant(resource: Resource, acceptEncoding: string | undefined): Variant {
  const { br, gzip } = resource;
  // No Accept-Encoding at all means "anything" by RFC 9110 §12.5.3, but curl and scripts that
  // send none expect plain bytes; nginx and CDNs answer them with identity too.
  if ((br === undefined && gzip === undefined) || acceptEncoding === undefined) return resource.identity;
  const accepted = readAcceptEncoding(acceptEncoding);
  if (br !== undefined && accepted.br > 0 && (gzip === undefined || accepted.br >= accepted.gzip)) return br;
  if (gzip !== undefined && accepted.gzip > 0) return gzip;
  return resource.identity;
}

function readAcceptEncoding(header: string): AcceptedEncodings {
  let accepted = acceptEncodingMemo.get(header);
  if (accepted === undefined) {
    accepted = parseAcceptEncoding(header);
    if (header.length <= ACCEPT_ENCODING_MEMO_MAX_LENGTH) {
      if (acceptEncodingMemo.size >= ACCEPT_ENCODING_MEMO_SIZE) acceptEncodingMemo.clear();
      acceptEncodingMemo.set(header, accepted);
    }
  }
  return accepted;
}

/** q-values of br and gzip by RFC 9110 §12.5.3: an explicit entry wins over `*`, q=0 means "not acceptable". */
function parseAcceptEncoding(header: string): AcceptedEncodings {
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const member of header.split(',')) {
    const [name = '', ...parameters] = member.split(';');
    let quality = 1;
    for (const parameter of parameters) {
      const equals = parameter.indexOf('=');
      if (equals !== -1 && parameter.slice(0, equals).trim().toLowerCase() === 'q') {
        quality = Number(parameter.slice(equals + 1).trim());
      }
    }
    // A q-value we cannot read is taken as a refusal: never send a coding the client may not decode.
    if (!Number.isFinite(quality) || quality < 0) quality = 0;
    const coding = name.trim().toLowerCase();
    if (coding === 'br') br = quality;
    // RFC 9110 §8.4.1.3: x-gzip is an alias of gzip.
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = quality;
    else if (coding === '*') any = quality;
  }
  if (br === undefined && gzip === undefined && any === undefined) return IDENTITY_ONLY;
  return { br: br ?? any ?? 0, gzip: gzip ?? any ?? 0 };
}

/** RFC 9110 §13.2.2, steps 1 to 4, for a GET or HEAD of a representation that exists. */
function evaluatePreconditions(headers: IncomingHttpHeaders, variant: Variant): 200 | 304 | 412 {
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    // §13.1.1: If-Match uses the strong comparison.
    if (!matchesEntityTag(ifMatch, variant.etag, false)) return 412;
  } else {
    const unmodifiedSince = parseHttpDate(headers['if-unmodified-since']);
    if (unmodifiedSince !== undefined && variant.modifiedMs > unmodifiedSince) return 412;
  }
  const ifNoneMatch = headers['if-none-match'];
  // §13.1.2: If-None-Match uses the weak comparison, and when present If-Modified-Since is ignored.
  if (ifNoneMatch !== undefined) return matchesEntityTag(ifNoneMatch, variant.etag, true) ? 304 : 200;
  const modifiedSince = parseHttpDate(headers['if-modified-since']);
  return modifiedSince !== undefined && variant.modifiedMs <= modifiedSince ? 304 : 200;
}

/** `*` or a list of entity tags; our tags never contain commas, so splitting on them is exact for ours. */
function matchesEntityTag(header: string, etag: string, weakComparison: boolean): boolean {
  if (header === etag) return true;
  for (const member of header.split(',')) {
    const tag = member.trim();
    if (tag === '*' || tag === etag) return true;
    if (weakComparison && tag.startsWith('W/') && tag.slice(2) === etag) return true;
  }
  return false;
}

/** RFC 9110 §13.1.5: an entity tag must match strongly, a date exactly; otherwise send the whole file. */
function honoursIfRange(value: string | undefined, variant: Variant): boolean {
  if (value === undefined) return true;
  const validator = value.trim();
  if (validator.startsWith('"') || validator.startsWith('W/')) return validator === variant.etag;
  return parseHttpDate(validator) === variant.modifiedMs;
}

/** Node joins repeated unknown fields with ", ", so an array only shows up when a caller built the headers. */
function singleValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return formatEtag(hash);
}

/** 128 bits of SHA-256 are plenty to tell versions of one URL apart, and keep headers short. */
function formatEtag(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 22)}"`;
}

function notFoundHeaders(contentType: string, size: number): OutgoingHttpHeaders {
  // Revalidated like HTML: the next deployment may add the file.
  return { 'Content-Type': contentType, 'Content-Length': String(size), 'Cache-Control': REVALIDATE };
}

function sendRedirect(res: ServerResponse, location: string, isHead: boolean): void {
  // Not cached for long: browsers keep a 301 forever, and the next deployment may turn the folder into a file.
  sendText(res, 301, `Redirecting to ${location}`, isHead, {
    Location: location,
    'Cache-Control': REVALIDATE,
  });
}

function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  isHead: boolean,
  extraHeaders: OutgoingHttpHeaders = {},
): void {
  const body = Buffer.from(text + '\n');
  sendBuffer(
    res,
    status,
    { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(body.length), ...extraHeaders },
    body,
    isHead,
  );
}

function sendBuffer(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  isHead: boolean,
): void {
  res.writeHead(status, headers);
  if (isHead) res.end();
  else res.end(body);
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return '';
}
