/**
 * Answers whose header block node formats once per second and the edge then writes as bytes: answers from memory
 * (web-cache hits, static files, keyed by their field list) and proxied answers (keyed by route, their fields
 * compared). Formatting the block is most of what an answer from memory costs node: writeHead checks and
 * concatenates every field, and end() turns the string into bytes for each answer. Writing the block node made for
 * the previous answer of the same fields instead served a web-cache hit at 1.19–1.23× the answers per second of the
 * same edge calling writeHead, at once on one core (docs/benchmarks.md, "a header block written as bytes").
 *
 * The block is always node's own: the first answer of a field list in a second is written with writeHead, and
 * what node made of it (`_header`) is kept with the response state that decided it. Later answers of that list in
 * the same second, whose responses are in the same state, are written with those bytes; any other answer is written
 * with writeHead as before. header-block.test.ts compares the bytes with node's own answers, request by request
 * (keep-alive, Connection: close, HTTP/1.0, HEAD, chunks, pipelined requests, a connection's last request).
 */
import type { ServerResponse } from 'node:http';

/** A field list as `res.writeHead(status, list)` takes it: the same (frozen) array for the same fields. */
export type HeaderList = readonly (string | readonly string[])[];

/**
 * The undocumented fields of node 20's ServerResponse (lib/_http_outgoing.js, lib/_http_server.js) that decide the
 * block `_storeHeader` makes and that hold it. Read, and `_header` and `_headerSent` set, by this module only.
 */
interface ResponseInternals {
  /** The header block made by writeHead (null until then), written before the first body bytes. */
  _header: string | null;
  /** Whether `_header` has gone to the socket (or its queue). */
  _headerSent: boolean;
  /** False for HEAD requests (and 1xx, 204, 304 answers): node writes no body, and drops body writes. */
  _hasBody: boolean;
  /** Set by writeHead for a list without Content-Length: the body goes out in chunks. */
  chunkedEncoding: boolean;
  /** Set by writeHead when the connection ends with this answer. */
  _last: boolean;
  /** False for an HTTP/1.0 request: without Content-Length node closes the connection instead of sending chunks. */
  useChunkedEncodingByDefault: boolean;
  /** Decide the Connection and Keep-Alive fields node adds. */
  shouldKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
  _keepAliveTimeout: number;
  _maxRequestsPerSocket: number | undefined;
  _defaultKeepAlive: boolean;
  /** A request that expected 100 Continue without it being sent: node closes the connection after the answer. */
  _expect_continue: boolean;
  _removedConnection: boolean;
  _removedContLen: boolean;
  _removedTE: boolean;
}

interface Block {
  /** The fields it was made from, compared with the next answer's when they are not the same list. */
  readonly list: HeaderList;
  /** The second it was made in: node adds a Date field when the list has none. */
  readonly second: number;
  readonly status: number;
  readonly statusMessage: string;
  /** What writeHead set for the body's framing: chunks when the list has no Content-Length. */
  readonly chunkedEncoding: boolean;
  /** Without Content-Length, node's block for a HEAD request (no body) has no Transfer-Encoding. */
  readonly hasBody: boolean;
  /** Without Content-Length, an HTTP/1.1 request's block says chunked, an HTTP/1.0 one's does not. */
  readonly chunkedByDefault: boolean;
  readonly keepAliveTimeout: number;
  readonly maxRequestsPerSocket: number | undefined;
  /** `_header` as node made it, and its bytes (latin1, as node writes it). */
  readonly text: string;
  readonly bytes: Buffer;
}

/** The block last made per key: a field list (an answer from memory) or a route (a proxied answer). */
const BLOCKS = new WeakMap<object, Block>();

/**
 * Whether node would make this response's block from its field list alone: no field set before, a keep-alive
 * answer that is not the connection's last, nothing removed. Only then is a kept block the one it would make.
 */
function isPlain(res: ServerResponse, state: ResponseInternals): boolean {
  return (
    state._header === null &&
    state.shouldKeepAlive &&
    !state.maxRequestsOnConnectionReached &&
    !state._expect_continue &&
    state._defaultKeepAlive &&
    res.sendDate &&
    !state._removedConnection &&
    !state._removedContLen &&
    !state._removedTE &&
    res.getHeaderNames().length === 0
  );
}

function sameFields(a: HeaderList, b: HeaderList): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/**
 * `res.writeHead(status, list)`, from the block kept under `key` when node would make the same one: the block is
 * then written as bytes before the body, or with end() when the answer has none (HEAD). The caller corks the
 * socket first when the body follows in the same tick, so that both go out in one system call.
 */
export function writeFieldsHead(
  res: ServerResponse,
  status: number,
  list: HeaderList,
  nowMs: number,
  key: object = list,
): void {
  const state = res as unknown as ResponseInternals;
  // 1xx, 204 and 304 answers have no body: writeHead changes more of the response's state for them.
  const reusable = status >= 200 && status !== 204 && status !== 304 && isPlain(res, state);
  const second = Math.floor(nowMs / 1000);
  const block = reusable ? BLOCKS.get(key) : undefined;
  if (
    block !== undefined &&
    block.second === second &&
    block.status === status &&
    block.hasBody === state._hasBody &&
    block.chunkedByDefault === state.useChunkedEncodingByDefault &&
    block.keepAliveTimeout === state._keepAliveTimeout &&
    block.maxRequestsPerSocket === state._maxRequestsPerSocket &&
    sameFields(block.list, list)
  ) {
    res.statusCode = status;
    res.statusMessage = block.statusMessage;
    state._header = block.text;
    if (state._hasBody) {
      state._headerSent = true;
      res.write(block.bytes);
    } else {
      // end() writes it then, as one string, as it does after writeHead.
      state._headerSent = false;
    }
    // After the block's own write, which must not be framed as a chunk.
    state.chunkedEncoding = block.chunkedEncoding;
    return;
  }
  res.writeHead(status, list as (string | string[])[]);
  const text = state._header;
  // Kept only when writeHead changed nothing else but the framing of the body.
  if (reusable && text !== null && !state._last && state.shouldKeepAlive)
    BLOCKS.set(key, {
      list,
      second,
      status,
      statusMessage: res.statusMessage,
      chunkedEncoding: state.chunkedEncoding,
      hasBody: state._hasBody,
      chunkedByDefault: state.useChunkedEncodingByDefault,
      keepAliveTimeout: state._keepAliveTimeout,
      maxRequestsPerSocket: state._maxRequestsPerSocket,
      text,
      bytes: Buffer.from(text, 'latin1'),
    });
}

/**
 * Answers with `status`, the fields of `list` and `body` (undefined: no body, as for HEAD), as
 * `res.writeHead(status, list); res.end(body)` would. `nowMs`: the time now, for the second a block is kept for.
 * The header block written is `_header` afterwards, as after writeHead.
 */
export function answerWithFields(
  res: ServerResponse,
  status: number,
  list: HeaderList,
  body: Buffer | undefined,
  nowMs: number,
): void {
  // The block and the body go out together, in one system call, once end() uncorks the socket.
  res.socket?.cork();
  writeFieldsHead(res, status, list, nowMs);
  res.end(body);
}
