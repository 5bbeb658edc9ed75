/**
 * The limits an uploaded .zip is held to and the check of each entry, pure so that the inspector and the
 * unpacker apply the same rules.
 */
import type { FieldViolation } from '../error-catalogue.js';

/**
 * What an uploaded archive may hold, checked entry by entry from its central directory
 * before anything is written (docs/security.md "Never trusting an archive"; Dokploy's drop tests). Every refusal
 * names the rule and the entry.
 */
export interface ArchiveLimits {
  /** Bytes of the .zip itself. */
  readonly maxArchiveBytes: number;
  readonly maxEntries: number;
  /** Sum of the declared uncompressed sizes. */
  readonly maxUnpackedBytes: number;
  /** Uncompressed over compressed size, for entries larger than RATIO_FLOOR_BYTES. */
  readonly maxCompressionRatio: number;
  /**
   * Declared uncompressed bytes of all entries over the bytes of the .zip, once they pass
   * ARCHIVE_RATIO_FLOOR_BYTES: many entries each under RATIO_FLOOR_BYTES make a bomb too.
   */
  readonly maxArchiveRatio: number;
}

/** Below this size a high ratio is harmless (a file of spaces), so it is not checked. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * Below this many unpacked bytes in all, an archive's ratio is not checked: a small project
 * of repetitive text may compress very well, and 64 MiB on disk is no threat. Source
 * archives of real projects compress under 10 times; 600 entries of 1 MiB of zeros in a
 * 676 KB .zip (629 MB unpacked) compress 930 times.
 */
export const ARCHIVE_RATIO_FLOOR_BYTES = 64 * 1024 * 1024;

/**
 * Path limits of an entry. Linux file systems take 255 bytes per name (NAME_MAX) and 4096
 * bytes per path (PATH_MAX) with the folder the platform unpacks into
 * (`<data>/builds/<build>/source/`, `<data>/deployments/<environment>/<build>/`) and what
 * a build adds below (node_modules, caches). An entry of "d/" × 2000 unpacked into such a
 * folder made a tree that no path can name, which Node's recursive removal cannot delete.
 */
export const MAX_NAME_BYTES = 255;
/** Bytes of an entry's whole path (UTF-8): a quarter of PATH_MAX leaves room for both prefixes. */
export const MAX_PATH_BYTES = 1024;
/** Folders in an entry's path: real projects, node_modules included, nest a few dozen at most. */
export const MAX_PATH_DEPTH = 128;

/** An entry's name as refusals show it: a name of thousands of characters is cut. */
function shown(name: string): string {
  return name.length <= 120 ? name : `${name.slice(0, 100)}…${name.slice(-19)}`;
}

/** The reason a path is refused for its length or depth, or undefined. */
function refusePathShape(name: string): string | undefined {
  const parts = name.split('/').filter((part) => part !== '');
  const long = parts.find((part) => Buffer.byteLength(part, 'utf8') > MAX_NAME_BYTES);
  if (long !== undefined)
    return `entry "${shown(name)}" has a name of ${Buffer.byteLength(long, 'utf8')} bytes in its path, more than the limit of ${MAX_NAME_BYTES} bytes per name`;
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_PATH_BYTES)
    return `entry "${shown(name)}" has a path of ${bytes} bytes, more than the limit of ${MAX_PATH_BYTES} bytes`;
  if (parts.length > MAX_PATH_DEPTH)
    return `entry "${shown(name)}" is ${parts.length} levels deep, more than the limit of ${MAX_PATH_DEPTH} levels`;
  return undefined;
}

export interface ArchiveEntryInfo {
  readonly name: string;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** Upper 16 bits of the external attributes: the Unix mode when made on Unix. */
  readonly unixMode: number;
  readonly encrypted: boolean;
}

const S_IFMT = 0o170000;
const FILE_TYPES: Readonly<Record<number, string>> = {
  0o120000: 'a symbolic link',
  0o020000: 'a character device',
  0o060000: 'a block device',
  0o010000: 'a FIFO',
  0o140000: 'a socket',
};

/** The reason an entry is refused, or undefined. */
export function refuseEntry(entry: ArchiveEntryInfo, limits: ArchiveLimits): string | undefined {
  const { name } = entry;
  const display = shown(name);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `entry "${display}" has an absolute path`;
  if (name.includes('\\')) return `entry "${display}" uses backslashes in its path`;
  if (name.split('/').includes('..')) return `entry "${display}" escapes the archive with ".."`;
  if (name.includes('\u0000')) return `entry "${display}" has a NUL character in its name`;
  const shape = refusePathShape(name);
  if (shape !== undefined) return shape;
  const type = FILE_TYPES[entry.unixMode & S_IFMT];
  if (type !== undefined) return `entry "${display}" is ${type}; only files and folders are accepted`;
  if (entry.encrypted) return `entry "${display}" is encrypted; upload an archive without a password`;
  if (
    entry.uncompressedSize > RATIO_FLOOR_BYTES &&
    entry.uncompressedSize / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio
  ) {
    return `entry "${display}" expands ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))} times, more than the limit of ${limits.maxCompressionRatio} (a zip bomb?)`;
  }
  return undefined;
}

/**
 * The most bytes an archive of `archiveBytes` may unpack to: the total limit, and the
 * archive's ratio limit once past its floor. The inspector checks declared sizes against it;
 * the unpacker counts the bytes that really arrive against it.
 */
export function unpackedByteBudget(archiveBytes: number, limits: ArchiveLimits): number {
  return Math.min(
    limits.maxUnpackedBytes,
    Math.max(ARCHIVE_RATIO_FLOOR_BYTES, archiveBytes * limits.maxArchiveRatio),
  );
}

/** The reason an archive is refused for what its entries unpack to together, or undefined. */
export function refuseUnpackedTotal(
  unpackedBytes: number,
  archiveBytes: number,
  limits: ArchiveLimits,
): string | undefined {
  if (unpackedBytes > limits.maxUnpackedBytes)
    return `unpacks to more than ${limits.maxUnpackedBytes} bytes (ATOLL_UPLOAD_MAX_UNPACKED_BYTES)`;
  if (unpackedBytes > unpackedByteBudget(archiveBytes, limits)) {
    const ratio = Math.round(unpackedBytes / Math.max(archiveBytes, 1));
    return `expands ${ratio} times as a whole (${unpackedBytes} bytes from ${archiveBytes}), more than the limit of ${limits.maxArchiveRatio} (ATOLL_UPLOAD_MAX_ARCHIVE_RATIO; a zip bomb of many entries?)`;
  }
  return undefined;
}

/** The field violation of an upload refused for its archive. */
export function archiveViolation(description: string): FieldViolation {
  return { field: 'repository', description };
}

/**
 * The folder the app lives in: an archive whose entries all sit under one top folder (what
 * zipping a folder makes) is that folder; `rootDirectory` then selects a sub-folder.
 */
export function sourceRoot(entryNames: readonly string[], rootDirectory: string): string {
  const files = entryNames.filter((n) => n !== '' && !n.startsWith('__MACOSX/'));
  const tops = new Set(files.map((n) => n.split('/')[0]));
  const [top] = tops;
  const wrapped = tops.size === 1 && top !== undefined && files.every((n) => n.startsWith(`${top}/`));
  const base = wrapped ? top : '';
  return [base, rootDirectory].filter((p) => p !== '').join('/');
}
