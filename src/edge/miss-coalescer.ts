/**
 * Request coalescing for the web cache's misses: while one request for a path is on its way to the
 * app, other visitors asking for the same path wait for its answer instead of each asking the app
 * (nginx's proxy_cache_lock, Varnish's waiting list). Without it, a page purged after a
 * revalidation, or one whose cached copy just expired, sends every visitor of that moment to the
 * app at once: the thundering herd that ISR exists to avoid.
 *
 * A path whose answer turns out not to be storable (a personalised or no-store page) releases its
 * waiters as soon as its headers say so, and is remembered for a while as not worth waiting for
 * (Varnish's hit-for-miss), so dynamic pages under load do not queue behind one another.
 */

/** What a request that missed the cache does next. */
export type MissTurn =
  /** Ask the app; call settle() once the answer is stored, or known not to be storable, or failed. */
  | { readonly kind: 'lead'; readonly settle: () => void }
  /** Another request for the path is on its way: look the cache up again once this resolves. */
  | { readonly kind: 'wait'; readonly settled: Promise<void> }
  /** Ask the app directly: the path's answers are not storable lately. */
  | { readonly kind: 'pass' };

export interface MissCoalescerOptions {
  readonly clock: { now(): Date };
  /** How long a path whose answer was not storable is not coalesced. Default 10 s. */
  readonly passMs?: number;
  /** Paths remembered as not storable at most (the memory bound); past it the memo starts over. */
  readonly maxPassPaths?: number;
}

const PASS: MissTurn = { kind: 'pass' };

export class MissCoalescer {
  readonly #clock: { now(): Date };
  readonly #passMs: number;
  readonly #maxPassPaths: number;
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Path → until when (ms) it is not coalesced. */
  readonly #passUntil = new Map<string, number>();

  constructor(options: MissCoalescerOptions) {
    this.#clock = options.clock;
    this.#passMs = options.passMs ?? 10_000;
    this.#maxPassPaths = options.maxPassPaths ?? 10_000;
  }

  /** The turn of a request that missed the cache for `key` (one environment's path with query). */
  begin(key: string): MissTurn {
    const waiting = this.#inFlight.get(key);
    if (waiting) return { kind: 'wait', settled: waiting };
    const passUntil = this.#passUntil.get(key);
    if (passUntil !== undefined) {
      if (this.#clock.now().getTime() < passUntil) return PASS;
      this.#passUntil.delete(key);
    }
    let release = (): void => undefined;
    const settled = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#inFlight.set(key, settled);
    let done = false;
    return {
      kind: 'lead',
      settle: () => {
        if (done) return;
        done = true;
        if (this.#inFlight.get(key) === settled) this.#inFlight.delete(key);
        release();
      },
    };
  }

  /** The leader's answer for `key` could not be stored: its waiters and the next requests ask the app. */
  notStorable(key: string): void {
    if (this.#passUntil.size >= this.#maxPassPaths) this.#passUntil.clear();
    this.#passUntil.set(key, this.#clock.now().getTime() + this.#passMs);
  }

  /** Requests leading now (tests). */
  get inFlight(): number {
    return this.#inFlight.size;
  }
}
