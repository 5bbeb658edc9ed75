/**
 * The CLI's upload transport: a streamed multipart body with an exact length and progress, where fetch
 * gives neither.
 */
import { randomBytes } from 'node:crypto';
import type { UploadTransport } from '../client/api-client.js';

/**
 * The CLI's upload transport: the multipart body is written by hand around the file's stream, so
 * the request has an exact Content-Length (the server refuses an oversized archive before reading
 * it), the file is never held in memory, and each chunk handed to the socket is counted for the
 * progress bar. The portal uses XMLHttpRequest for the same reason (fetch reports no upload progress).
 */
export const streamingUpload: UploadTransport = async (url, form, headers, onProgress) => {
  const parts = [...form.entries()];
  const [entry] = parts;
  if (parts.length !== 1 || entry === undefined || typeof entry[1] === 'string')
    throw new Error('streamingUpload sends exactly one file part');
  const [field, file] = entry;
  const boundary = `atoll-${randomBytes(16).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${file.name.replace(/["\r\n]/g, '_')}"\r\n` +
      'Content-Type: application/zip\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + file.size + tail.length;
  let sent = 0;
  const count = (chunk: Uint8Array) => {
    sent += chunk.byteLength;
    onProgress(sent, total);
    return chunk;
  };
  const fileReader = (file.stream() as ReadableStream<Uint8Array>).getReader();
  let stage: 'head' | 'file' | 'tail' | 'done' = 'head';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 'head') {
        stage = 'file';
        controller.enqueue(count(head));
        return;
      }
      if (stage === 'file') {
        const { done, value } = await fileReader.read();
        if (!done) {
          controller.enqueue(count(value));
          return;
        }
        stage = 'tail';
      }
      if (stage === 'tail') {
        stage = 'done';
        controller.enqueue(count(tail));
        return;
      }
      controller.close();
    },
    async cancel(reason) {
      await fileReader.cancel(reason);
    },
  });
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(total),
    },
    body,
    duplex: 'half',
  });
  return { status: response.status, text: await response.text() };
};
