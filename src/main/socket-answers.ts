/**
 * Whether a live process accepts connections on a Unix socket: a socket file left by a crash
 * refuses them. serve asks it of the admin socket before taking it over, doctor to find a running Atoll.
 */
import { connect } from 'node:net';

export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}
