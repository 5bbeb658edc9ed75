/**
 * How an HTTP server of the edge (or a runtime's origin server) stops: no new connection, the requests in
 * flight finish, and whatever is left is cut after the deadline. One place for the serving process and the
 * edge's worker processes.
 */
import type { Server } from 'node:http';

/** Resolves once the server closed; at once when it does not listen. */
export function closeGracefully(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
    server.closeIdleConnections();
    // A real deadline on real sockets, like the sandbox's wall-time kill: not the injected timer.
    setTimeout(() => {
      server.closeAllConnections();
    }, timeoutMs).unref();
  });
}
