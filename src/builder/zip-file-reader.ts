/**
 * Opens a .zip for yauzl with a file stream per entry, so that refusing one entry mid-unpack cannot crash
 * the process.
 */
import { close, createReadStream, fstat, open, read } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import yauzl, { type Options, type ZipFile } from 'yauzl';

/**
 * yauzl's reader of a .zip on disk, with a file stream of its own for each entry. yauzl's built-in
 * reader queues every read of every entry on one shared descriptor, and a read still queued when
 * its entry's stream is destroyed (an entry refused while others are being written) throws from
 * inside yauzl, outside any promise, taking the process down. Node's own file streams stop cleanly
 * when destroyed. The central directory is read with positional reads of one descriptor.
 */
class ZipFileReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly path: string,
    private readonly fd: number,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // yauzl's end is exclusive, Node's inclusive; an empty range has nothing to open.
    if (end <= start) return new PassThrough().end();
    return createReadStream(this.path, { start, end: end - 1 });
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null) => void,
  ): void {
    read(this.fd, buffer, offset, length, position, (error, bytesRead) => {
      if (error) callback(error);
      else if (bytesRead < length) callback(new Error('unexpected EOF'));
      else callback(null);
    });
  }

  override close(callback: (err: Error | null) => void): void {
    close(this.fd, callback);
  }
}

/** Opens a .zip on disk for yauzl with ZipFileReader; `close()` of the ZipFile closes the file. */
export function openZipFile(path: string, options: Options): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) {
        reject(openError);
        return;
      }
      fstat(fd, (statError, stats) => {
        if (statError) {
          close(fd, () => {
            reject(statError);
          });
          return;
        }
        // The reader owns the descriptor from here: yauzl closes it (through close()) on a refusal too.
        yauzl.fromRandomAccessReader(new ZipFileReader(path, fd), stats.size, options, (error, zip) => {
          if (error) reject(error);
          else resolve(zip);
        });
      });
    });
  });
}
