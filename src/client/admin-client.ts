/** The typed client of the admin Unix socket, for the operator commands of the CLI. */
import { request } from 'node:http';
import type { Status } from '../contract/common-schemas.js';

/** A failed call: the server's Status, or why the server could not be reached. */
export class AdminClientError extends Error {
  override readonly name = 'AdminClientError';
  constructor(
    message: string,
    readonly httpStatus: number | undefined,
    readonly status: Status | undefined,
  ) {
    super(message);
  }
}

/** Talks JSON to the operator endpoints on the admin Unix socket of a running server. */
export class AdminClient {
  constructor(private readonly socketPath: string) {}

  call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          method,
          path,
          headers:
            payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              reject(
                new AdminClientError(
                  `the admin socket answered ${res.statusCode ?? '?'} with a body that is not JSON`,
                  res.statusCode,
                  undefined,
                ),
              );
              return;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed as T);
            else
              reject(
                new AdminClientError(
                  (parsed as Status | undefined)?.message ?? `HTTP ${status}`,
                  status,
                  parsed as Status | undefined,
                ),
              );
          });
          res.on('error', reject);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
            ? 'no atoll server is running with this data folder'
            : error.message;
        reject(
          new AdminClientError(
            `cannot reach the admin socket ${this.socketPath}: ${reason}; start it with "npm start" (or "atoll serve") and set ATOLL_DATA_DIR like the server's`,
            undefined,
            undefined,
          ),
        );
      });
      req.end(payload);
    });
  }
}
