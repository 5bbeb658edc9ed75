/** The forked upload server's side of the IPC channel with run.ts. */
import type { ChildMessage, ParentMessage } from './child-protocol.js';
import { ServerProbe } from './server-probe.js';

function send(message: ChildMessage): void {
  // run.ts may be gone already (interrupted while this server was starting).
  if (process.connected) process.send?.(message);
}

/**
 * The forked server's side of the IPC channel: starts the server, says where it listens,
 * answers probe marks and reads, and closes everything when run.ts disconnects (or dies).
 */
export function runControlledServer(
  name: string,
  start: () => Promise<{
    url: string;
    path: string;
    authorization: string;
    close: () => Promise<void>;
  }>,
): void {
  if (!process.send) {
    process.stderr.write(`${name} is started by bench/upload/run.ts (it needs an IPC channel)\n`);
    process.exit(2);
  }
  const probe = new ServerProbe();
  // Disconnected before the server is up: nothing to close yet, and nobody to answer.
  const orphaned = () => process.exit(1);
  process.once('disconnect', orphaned);
  start().then(
    (server) => {
      process.on('message', (message: ParentMessage) => {
        if (message.type === 'mark') send({ type: 'marked', baselineRss: probe.mark() });
        else send({ type: 'report', report: probe.read() });
      });
      process.off('disconnect', orphaned);
      if (!process.connected) {
        void server.close().finally(() => process.exit(1));
        return;
      }
      process.once('disconnect', () => {
        probe.stop();
        server.close().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`${name}: closing failed: ${String(error)}\n`);
            process.exit(1);
          },
        );
      });
      send({
        type: 'ready',
        url: server.url,
        path: server.path,
        authorization: server.authorization,
        startupRss: process.memoryUsage().rss,
      });
    },
    (error: unknown) => {
      process.off('disconnect', orphaned);
      send({
        type: 'failed',
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      if (process.connected) process.disconnect();
      process.exitCode = 1;
    },
  );
}
