/**
 * A store for @fastify/rate-limit over the shared-counter port, so that the API, the webhook URLs and
 * the purge API count each key once across every process that serves them.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { ClockedCounters, WindowCount } from '../services/kit/shared-counters.js';

type Answer = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** Answers the plugin in its callback's terms: the count, and the milliseconds left in the window. */
function answerWith(answer: Answer, counting: Promise<WindowCount>, now: Date): void {
  counting.then(
    (window) => {
      answer(null, { current: window.count, ttl: Math.max(0, window.windowEnd.getTime() - now.getTime()) });
    },
    (error: unknown) => {
      answer(error instanceof Error ? error : new Error(String(error)));
    },
  );
}

/**
 * The plugin's Store interface (`incr`, `read`, `child`): counts in windows of the plugin's
 * timeWindow opened by a key's first hit, as its own LocalStore does, and answers as ttl the time
 * left in the window, which the plugin turns into Retry-After. `scope` keeps the keys of one limit apart from every other counted in the same
 * counters.
 */
class SharedRateLimitStore implements FastifyRateLimitStore {
  constructor(
    private readonly counting: ClockedCounters,
    private readonly scope: string,
  ) {}

  incr(key: string, answer: Answer, timeWindow: number): void {
    const now = this.counting.clock.now();
    answerWith(answer, this.counting.counters.hit(`${this.scope}:${key}`, timeWindow, now), now);
  }

  /** What `{ increment: false }` asks: the count so far, not counting. */
  read(key: string, answer: Answer): void {
    const now = this.counting.clock.now();
    answerWith(answer, this.counting.counters.peek(`${this.scope}:${key}`, now), now);
  }

  /** A route with its own limit counts apart from the plugin's global one, as the plugin's own stores do. */
  child(routeOptions: object): FastifyRateLimitStore {
    const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
    return new SharedRateLimitStore(
      this.counting,
      `${this.scope}:${String(route?.method)} ${String(route?.url)}`,
    );
  }
}

/** The `store` option of @fastify/rate-limit (which constructs it with its own options, not needed here). */
export function sharedRateLimitStore(counting: ClockedCounters, scope: string): FastifyRateLimitStoreCtor {
  return class extends SharedRateLimitStore {
    constructor() {
      super(counting, scope);
    }
  };
}
