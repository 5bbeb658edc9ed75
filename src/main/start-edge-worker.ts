/**
 * Starts an edge worker process (the program of src/main/edge-worker-process.ts) as the edge fleet of
 * `atoll serve` needs it. A file of its own, apart from the program: the built binary is bundled, and this
 * code lands in a chunk that `atoll serve` loads, while the program is an entry point of its own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { createPlatformLogger } from './platform-logger.js';
import { withOldGenerationFloor } from './old-generation-floor.js';

/**
 * The program beside this code: dist/main/edge-worker-process.js in the built binary (this code's chunk is in
 * dist/main too), src/main/edge-worker-process.ts under tsx (the tests), whose execArgv the worker inherits.
 */
const EDGE_WORKER_PROGRAM = fileURLToPath(
  new URL(`./edge-worker-process${extname(import.meta.url)}`, import.meta.url),
);

/**
 * Starts an edge worker process as the fleet needs it (EdgeFleetOptions.startWorker): an IPC channel with
 * advanced serialization (routes carry Maps, usage Dates), the fleet's stdout and stderr for its logs, and the
 * serving processes' V8 heap floor (src/main/old-generation-floor.ts).
 */
export function startEdgeWorker(logLevel: Parameters<typeof createPlatformLogger>[0]): ChildProcess {
  return fork(EDGE_WORKER_PROGRAM, [logLevel], {
    execArgv: withOldGenerationFloor(process.execArgv),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
