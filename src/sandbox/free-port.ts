/** A free loopback port, for servers and forwarded ports that must not collide. */
import { createServer } from 'node:net';

/** A loopback port nobody listens on now (the command binds it a moment later). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no loopback port'));
        else resolve(address.port);
      });
    });
  });
}
