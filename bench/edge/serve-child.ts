/**
 * The child side of bench/edge's server processes (edge-process.ts, upstream-app.ts,
 * bare-proxy.ts): starts the server, prints `{"port":N}` as the first line of stdout, and closes
 * and exits on SIGTERM or SIGINT, or when run.ts goes away (its end of our stdin closes). Exiting
 * through process.exit is what lets `--cpu-prof` write its profile.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdTickObjectShape } from '../../src/main/tick-object-shape.js';

export interface ChildServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on a free loopback port; keep-alive connections are never closed by the server while the benchmark runs. */
export async function listenOnLoopback(server: Server): Promise<ChildServer> {
  // wrk, nginx's upstream pool (60 s idle) and undici's pools keep connections between rounds.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

export function serveChild(name: string, start: () => Promise<ChildServer>): void {
  let closing = false;
  let server: ChildServer | undefined;
  const stop = (code: number) => {
    if (closing) return;
    closing = true;
    const exit = () => process.exit(code);
    if (server) server.close().then(exit, exit);
    else exit();
  };
  process.once('SIGTERM', () => {
    stop(0);
  });
  process.once('SIGINT', () => {
    stop(0);
  });
  // run.ts holds the other end of stdin: end of input means it is gone, killed or not.
  process.stdin.on('end', () => {
    stop(0);
  });
  process.stdin.on('error', () => {
    stop(0);
  });
  process.stdin.resume();
  // Every Node server of the benchmark, the bare baselines too, keeps node's nextTick fast as the
  // product's processes do (src/main/tick-object-shape.ts): a baseline that lost it would flatter the edge.
  holdTickObjectShape()
    .then(start)
    .then(
      (started) => {
        server = started;
        if (closing) {
          void started.close();
          return;
        }
        process.stdout.write(`${JSON.stringify({ port: started.port })}\n`);
      },
      (error: unknown) => {
        process.stderr.write(
          `${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
        process.exit(1);
      },
    );
}
