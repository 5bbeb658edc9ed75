import type { FieldViolation } from './error-catalogue.js';

/**
 * What an uploaded archive may hold, checked entry by entry from its central directory
 * before anything is written (design.md convention 8; Dokploy's drop tests). Every refusal
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
}

/** Below this size a high ratio is harmless (a file of spaces), so it is not checked. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

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
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `entry "${name}" has an absolute path`;
  if (name.includes('\\')) return `entry "${name}" uses backslashes in its path`;
  if (name.split('/').includes('..')) return `entry "${name}" escapes the archive with ".."`;
  if (name.includes('\u0000')) return `entry "${name}" has a NUL character in its name`;
  const type = FILE_TYPES[entry.unixMode & S_IFMT];
  if (type !== undefined) return `entry "${name}" is ${type}; only files and folders are accepted`;
  if (entry.encrypted) return `entry "${name}" is encrypted; upload an archive without a password`;
  if (
    entry.uncompressedSize > RATIO_FLOOR_BYTES &&
    entry.uncompressedSize / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio
  ) {
    return `entry "${name}" expands ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))} times, more than the limit of ${limits.maxCompressionRatio} (a zip bomb?)`;
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
