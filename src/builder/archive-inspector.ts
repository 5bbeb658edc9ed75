/**
 * The ArchiveInspector port with yauzl: an upload is refused from its table of contents before anything is
 * unpacked.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { zipEntryInfo } from './zip-entry-info.js';
import { refuseEntry, refuseUnpackedTotal, type ArchiveLimits } from '../domain/builds/archive-rules.js';
import type { ArchiveInspector, ArchiveSummary } from '../services/builds/uploads-service.js';

/** yauzl's own refusals, said in the words of our rules. */
function explainYauzlError(error: Error): string {
  const message = error.message;
  if (/end of central directory record signature not found/i.test(message))
    return 'is not a .zip archive (no end-of-central-directory record)';
  if (/absolute path/i.test(message)) return `has an entry with an absolute path (${message})`;
  if (/invalid relative path/i.test(message))
    return `has an entry that escapes the archive with ".." (${message})`;
  if (/encrypted/i.test(message)) return 'holds encrypted entries; upload an archive without a password';
  if (
    /truncated|unexpected EOF|invalid .* signature|out of range|exceeds|too many|not enough/i.test(message)
  ) {
    return `is truncated or corrupt (${message})`;
  }
  return `cannot be read as a .zip archive (${message})`;
}

function open(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // lazyEntries: one entry at a time; names are checked by our rules to say which one broke.
    yauzl.open(
      path,
      {
        lazyEntries: true,
        autoClose: true,
        decodeStrings: true,
        validateEntrySizes: true,
        strictFileNames: false,
      },
      (error, zip) => {
        if (error) reject(error);
        else resolve(zip);
      },
    );
  });
}

/**
 * Reads the central directory of an uploaded .zip and refuses it before anything is
 * unpacked: counts, declared sizes, ratios (of each entry and of the whole archive), names,
 * path lengths and depths, and entry types (docs/security.md "Never trusting an archive").
 */
export const yauzlArchiveInspector: ArchiveInspector = {
  async inspect(path: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
    let zip: ZipFile;
    try {
      zip = await open(path);
    } catch (error) {
      return { refusal: explainYauzlError(error as Error) };
    }
    if (zip.entryCount > limits.maxEntries) {
      zip.close();
      return {
        refusal: `has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries} (ATOLL_UPLOAD_MAX_ENTRIES)`,
      };
    }
    return new Promise<ArchiveSummary>((resolve) => {
      const names: string[] = [];
      let unpackedBytes = 0;
      let settled = false;
      const finish = (summary: ArchiveSummary) => {
        if (settled) return;
        settled = true;
        zip.close();
        resolve(summary);
      };
      zip.on('entry', (entry: Entry) => {
        const refusal = refuseEntry(zipEntryInfo(entry), limits);
        if (refusal !== undefined) {
          finish({ refusal });
          return;
        }
        unpackedBytes += entry.uncompressedSize;
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => {
        // Totals once every entry is read (at most maxEntries of them), so the refusal says them whole.
        const tooMuch = refuseUnpackedTotal(unpackedBytes, zip.fileSize, limits);
        if (tooMuch !== undefined) finish({ refusal: tooMuch });
        else if (names.filter((n) => !n.endsWith('/')).length === 0) finish({ refusal: 'holds no files' });
        else finish({ entries: names.length, unpackedBytes, names });
      });
      zip.on('error', (error: Error) => {
        finish({ refusal: explainYauzlError(error) });
      });
      zip.readEntry();
    });
  },
};
