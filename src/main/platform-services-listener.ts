/**
 * Listens for the platform services hosted apps call, on the Unix socket their sandboxes reach.
 */
import { chmodSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildPlatformServer } from '../http/build-platform-server.js';
import type { Services } from './compose/all-roles.js';

/**
 * Serves the platform services for hosted apps on their Unix socket. Every app sandbox runs
 * as its own uid and reaches the socket through a bind mount, so it is open to all (0666);
 * the folder around it is the platform's, and each call needs its environment's token.
 */
export async function listenPlatformServices(
  services: Pick<Services, 'platformServices' | 'platformSocket' | 'rateCounters'>,
  logger: FastifyBaseLogger,
  options: { readonly purgesPerMinute: number; readonly kvMaxValueBytes: number },
): Promise<FastifyInstance> {
  const server = await buildPlatformServer(services.platformServices, logger, {
    ...options,
    rateCounters: services.rateCounters,
  });
  mkdirSync(dirname(services.platformSocket), { recursive: true, mode: 0o755 });
  // A socket file left by a platform that stopped hard answers nothing: it can go.
  if (existsSync(services.platformSocket)) unlinkSync(services.platformSocket);
  await server.listen({ path: services.platformSocket });
  chmodSync(services.platformSocket, 0o666);
  return server;
}
