/** The native tools bench/edge needs (nginx, wrk) and loopback helpers. */
import { accessSync, constants } from 'node:fs';
import { createServer, connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../shared/bench-main.js';

const INSTALL_HINT = 'install with: apt-get install -y nginx-light wrk';

/** The executable's path: PATH first, then the sbin folders a non-root PATH leaves out. */
export function findExecutable(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const folder of folders) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Both tools, or a UsageError naming what is missing and how to install it. */
export function requireTools(): { nginx: string; wrk: string } {
  const nginx = findExecutable('nginx');
  const wrk = findExecutable('wrk');
  const missing = [nginx === undefined ? 'nginx' : '', wrk === undefined ? 'wrk' : ''].filter(Boolean);
  if (nginx === undefined || wrk === undefined) {
    throw new UsageError(`bench:edge needs ${missing.join(' and ')} (not found on PATH); ${INSTALL_HINT}`);
  }
  return { nginx, wrk };
}

/** A loopback port free right now (the OS picks it; nginx binds it a moment later). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

/** Resolves once something accepts connections on the port; rejects after `timeoutMs` or when `gaveUp` says so. */
export async function waitForPort(port: number, timeoutMs: number, gaveUp: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        resolve(false);
      });
    });
    if (open) return;
    if (gaveUp()) throw new Error(`nothing listens on 127.0.0.1:${String(port)}: the server exited`);
    if (Date.now() > deadline)
      throw new Error(`nothing listens on 127.0.0.1:${String(port)} after ${timeoutMs} ms`);
    await sleep(50);
  }
}
