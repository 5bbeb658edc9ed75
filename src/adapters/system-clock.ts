/**
 * The real clock and timer behind the Clock and Timer ports; tests inject a fake one to skip time.
 */
import type { Clock, Timer } from '../services/kit/platform-ports.js';

export const systemClock: Clock & Timer = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      // Unref'd: a server loop that sleeps never keeps the process alive on its own.
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', wake);
        resolve();
      }, ms);
      timer.unref();
      signal?.addEventListener('abort', wake, { once: true });
    }),
};
