/**
 * The program of an edge worker process (src/edge/edge-worker.ts), started by the edge fleet of
 * `atoll serve` with an IPC channel (src/main/start-edge-worker.ts). It reads no setting of its own: the fleet
 * sends them. Nothing imports it: it is the program, and runs as soon as it loads.
 */
import type { Server } from 'node:net';
import { systemClock } from '../adapters/system-clock.js';
import type { FromWorker, ToWorker } from '../edge/edge-fleet-protocol.js';
import { EdgeWorker } from '../edge/edge-worker.js';
import { createPlatformLogger } from './platform-logger.js';
import { holdTickObjectShape } from './tick-object-shape.js';
import { widenInliningBudget } from './inlining-budget.js';

/** The log level comes as the one argument: the only setting the worker needs before the fleet speaks. */
function main(): void {
  const send = process.send?.bind(process);
  if (!send) {
    process.stderr.write('an edge worker is started by atoll serve (ATOLL_EDGE_WORKERS), not by hand\n');
    process.exit(2);
  }
  // The worker answers visitors through node:http: its ticks must stay cheap for its life.
  void holdTickObjectShape();
  widenInliningBudget();
  const level = (process.argv[2] ?? 'info') as Parameters<typeof createPlatformLogger>[0];
  const logger = createPlatformLogger(level).child({ role: 'edge', worker: process.pid });
  // The fleet's process decides when a worker stops (a terminal's Ctrl-C or systemd's SIGTERM reach the
  // whole group): the worker finishes its requests when the fleet says so, not before.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  // Without the fleet no change reaches it, and it holds the edge's port: it goes at once.
  process.on('disconnect', () => {
    process.exit(0);
  });
  const worker = new EdgeWorker(
    {
      send: (message: FromWorker) =>
        new Promise<void>((resolve) => {
          if (!process.connected) {
            resolve();
            return;
          }
          send(message, undefined, {}, () => {
            resolve();
          });
        }),
      onMessage: (listener) => {
        process.on('message', (message: ToWorker, handle: Server | undefined) => {
          listener(message, handle);
        });
      },
    },
    {
      clock: systemClock,
      logger,
      exit: () => {
        process.exit(0);
      },
    },
  );
  void worker.run();
}

main();
