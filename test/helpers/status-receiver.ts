/**
 * A git host's commit status API on loopback, over HTTPS with a certificate of its own: it records
 * every request (method, path, headers, JSON body) and answers as GitHub does (201), or with the
 * status a test sets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLoopbackCertificate } from './loopback-certificate.js';

export interface ReceivedStatus {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
}

export interface StatusReceiver {
  /** https://127.0.0.1:<port> */
  readonly origin: string;
  /** Its self-signed certificate (PEM), for the platform to trust. */
  readonly certificate: string;
  readonly received: readonly ReceivedStatus[];
  /** What it answers from now on (201 by default). */
  answerWith(status: number): void;
  stop(): Promise<void>;
}

export async function startStatusReceiver(): Promise<StatusReceiver> {
  const folder = mkdtempSync(join(tmpdir(), 'atoll-status-api-'));
  const { certFile, keyFile } = writeLoopbackCertificate(folder, 'atoll-test-status-api');
  const received: ReceivedStatus[] = [];
  let answer = 201;
  const server: Server = createServer(
    { cert: readFileSync(certFile), key: readFileSync(keyFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          body = {};
        }
        received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return {
    origin: `https://127.0.0.1:${String(address.port)}`,
    certificate: readFileSync(certFile, 'utf8'),
    received,
    answerWith(status) {
      answer = status;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
