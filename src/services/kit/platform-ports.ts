/** Small ports every service may need; main wires real implementations, tests fake ones. */
import type { Readable } from 'node:stream';

export interface Clock {
  now(): Date;
}

/**
 * Waiting, on the same injected time as Clock: every server loop, retry and backoff sleeps
 * through it, so that a test's fake clock skips the time instead of waiting it out.
 */
export interface Timer {
  /**
   * Resolves after `ms`; an abort of `signal` resolves it early (an aborted signal at once),
   * never rejects: an abort means "stop waiting", and the caller checks why it woke.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, encoded: string): Promise<boolean>;
}

/** An ssh key pair for a repository's deploy key: the private half in OpenSSH's format, the public one as one line. */
export interface DeployKeyMaker {
  make(comment: string): Promise<{ readonly privateKey: string; readonly publicKey: string }>;
}

/** Authenticated encryption of secrets at rest with the platform key. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** A keyed digest (HMAC) for looking secrets up without storing them. */
  digest(value: string): string;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Blobs by key (uploaded sources, artifacts, report PDFs): the filesystem under the data folder by
 * default, an S3-compatible object store when the platform runs on several machines. Keys are made by
 * the platform (`sources/<digest>.zip`); a store refuses any other shape, `..` included.
 */
export interface BlobStore {
  /** Moves a finished local file under the key (the file is gone afterwards). */
  adopt(key: string, localPath: string): Promise<void>;
  /** Writes a small blob whole (rendered reports): readers see all of it or nothing. */
  write(key: string, data: Buffer | string): Promise<void>;
  read(key: string): Promise<Buffer>;
  has(key: string): Promise<boolean>;
  /** Deletes the blob; a missing one is no error. */
  remove(key: string): Promise<void>;
  /** The blobs under a prefix (`sources`, `artifacts`) with when each was written. */
  list(prefix: string): Promise<{ key: string; modified: Date }[]>;
  /**
   * A local file holding the blob, to read (never to change or move), or undefined when no blob has
   * the key: the store's own file, or for a remote store a copy in a bounded local cache (downloaded on
   * first use, so a blob may be read by a process on another machine than the one that wrote it).
   */
  localCopy(key: string): Promise<string | undefined>;
  /**
   * Stores a stream under the key, replacing what is there: for the keys that are not content-addressed
   * (`caches/<environment>`, `toolchains/…`), which are read with readStream, never localCopy (whose copies
   * would go stale). A stream that fails stores nothing.
   */
  writeStream(key: string, body: Readable): Promise<void>;
  /** The blob as a stream, or undefined when there is none. */
  readStream(key: string): Promise<Readable | undefined>;
}
