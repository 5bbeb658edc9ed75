/**
 * The baseline of bench/upload, forked by run.ts: a plain node:http server that streams each
 * request body to a file and answers how many bytes it wrote. No parsing, hashing or checks:
 * what receiving the bytes on loopback and writing them to disk costs on this machine.
 *
 *   node --import tsx bench/upload/bare-sink.ts <folder for the received files>
 */
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { runControlledServer } from './child-control.js';

runControlledServer('bare-sink.ts', async () => {
  const folder = process.argv[2];
  if (folder === undefined) throw new Error('usage: bare-sink.ts <folder>');
  let received = 0;
  const server = createServer((request, response) => {
    received += 1;
    const path = join(folder, `sink-${received}.bin`);
    const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    pipeline(request, file).then(
      () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ bytes: file.bytesWritten, path }));
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: String(error) }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    path: '/sink',
    authorization: '',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
});
