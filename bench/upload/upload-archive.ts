/** Makes the .zip that `bench:upload` sends: real, incompressible and about the size asked for. */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

export interface UploadArchive {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly entries: number;
}

const CHUNK_BYTES = 256 * 1024;
const MTIME = new Date('2024-01-01T00:00:00Z');

/** `bytes` of random data, made as it is read: the archive is never held in memory. */
function randomData(bytes: number): Readable {
  return Readable.from(
    (function* () {
      for (let left = bytes; left > 0; left -= CHUNK_BYTES) yield randomBytes(Math.min(left, CHUNK_BYTES));
    })(),
    { objectMode: false },
  );
}

/**
 * A real .zip that passes the upload checks: an index.html and `files` assets of random
 * (incompressible) data, stored uncompressed, so that the archive is about `targetBytes` long
 * with a small entry count. Written by yazl as a stream, hashed on the way.
 */
export async function writeUploadArchive(
  path: string,
  targetBytes: number,
  files: number,
): Promise<UploadArchive> {
  const zip = new yazl.ZipFile();
  const index = Buffer.from('<!doctype html><title>atoll upload benchmark</title><h1>hello</h1>\n');
  zip.addBuffer(index, 'index.html', { mtime: MTIME, mode: 0o100644, compress: false });
  // Each stored entry costs about 100 bytes of headers on top of its data.
  const perFile = Math.max(1, Math.floor((targetBytes - index.length) / files) - 120);
  for (let i = 0; i < files; i++) {
    zip.addReadStream(randomData(perFile), `assets/blob-${String(i).padStart(4, '0')}.bin`, {
      mtime: MTIME,
      mode: 0o100644,
      compress: false,
      size: perFile,
    });
  }
  zip.end();
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    zip.outputStream,
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        bytes += chunk.length;
        callback(null, chunk);
      },
    }),
    createWriteStream(path, { mode: 0o600 }),
  );
  return { path, bytes, sha256: hash.digest('hex'), entries: files + 1 };
}
