/**
 * The bridge from a yauzl entry to what the pure archive rules read, shared by the inspector and the
 * unpacker.
 */
import type { Entry } from 'yauzl';
import type { ArchiveEntryInfo } from '../domain/builds/archive-rules.js';

/** What the archive rules need of a yauzl entry: the Unix mode sits in the upper half of the external attributes. */
export function zipEntryInfo(entry: Entry): ArchiveEntryInfo {
  return {
    name: entry.fileName,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    unixMode: (entry.externalFileAttributes >>> 16) & 0xffff,
    encrypted: (entry.generalPurposeBitFlag & 0x1) !== 0,
  };
}
