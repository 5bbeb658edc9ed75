/** The benchmark's upload client: a streamed multipart POST timed to its last byte sent and received. */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface UploadResult {
  readonly status: number;
  readonly text: string;
  /** Bytes of the request body (the multipart envelope around the archive). */
  readonly bodyBytes: number;
  /** From the request's start until the last body byte was handed to the socket. */
  readonly bodySentMs: number;
  /** From the request's start until the answer's last byte. */
  readonly totalMs: number;
}

const READ_CHUNK_BYTES = 256 * 1024;

/**
 * POSTs `archivePath` as the one file part `repository` of a multipart/form-data body (as
 * `curl -F repository=@code.zip` does: Content-Length, no chunking), streamed from the file
 * so that the client never holds the archive. Each call opens its own connection.
 */
export async function postMultipartArchive(options: {
  readonly url: string;
  readonly authorization: string;
  readonly archivePath: string;
  readonly archiveBytes: number;
}): Promise<UploadResult> {
  const boundary = `----atoll-bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="repository"; filename="code.zip"\r\n' +
      'Content-Type: application/zip\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bodyBytes = head.length + options.archiveBytes + tail.length;
  const headers: Record<string, string> = {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(bodyBytes),
  };
  if (options.authorization !== '') headers.authorization = options.authorization;

  const started = performance.now();
  let bodySentMs = Number.NaN;
  const outgoing = request(options.url, { method: 'POST', headers, agent: false });
  outgoing.once('finish', () => {
    bodySentMs = performance.now() - started;
  });
  const answered = new Promise<{ status: number; text: string; totalMs: number }>((resolve, reject) => {
    outgoing.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          totalMs: performance.now() - started,
        });
      });
      response.once('error', reject);
    });
    outgoing.once('error', reject);
  });
  const body = Readable.from(
    (async function* () {
      yield head;
      yield* createReadStream(options.archivePath, { highWaterMark: READ_CHUNK_BYTES });
      yield tail;
    })(),
    { objectMode: false },
  );
  const sent = pipeline(body, outgoing);
  // A server may answer (an error) before it has read the whole body and close the
  // connection: then the answer is what counts, not the failed write.
  const [sending, answer] = await Promise.allSettled([sent, answered]);
  if (answer.status === 'rejected') {
    throw sending.status === 'rejected' ? sending.reason : answer.reason;
  }
  return { ...answer.value, bodyBytes, bodySentMs };
}
