/**
 * The shared-counter port over the store's rate counters: what every process sharing one PostgreSQL
 * server uses, so that N processes enforce one limit, not N.
 */
import type { SecretBox } from './platform-ports.js';
import type { SharedCounters, WindowCount } from './shared-counters.js';
import type { RateCountersRepository } from './store-port.js';

/**
 * Keys hold client addresses and e-mail addresses: the store keeps only their keyed digest
 * (SecretBox.digest), so a copy of the database does not list who tried to sign in from where.
 */
export class StoreCounters implements SharedCounters {
  constructor(
    private readonly repository: RateCountersRepository,
    private readonly secretBox: Pick<SecretBox, 'digest'>,
  ) {}

  hit(key: string, windowMs: number, now: Date): Promise<WindowCount> {
    return this.repository.hit(this.secretBox.digest(key), now, new Date(now.getTime() + windowMs));
  }

  async peek(key: string, now: Date): Promise<WindowCount> {
    return (await this.repository.peek(this.secretBox.digest(key), now)) ?? { count: 0, windowEnd: now };
  }

  reset(key: string): Promise<void> {
    return this.repository.reset(this.secretBox.digest(key));
  }

  sweep(now: Date): Promise<number> {
    return this.repository.deleteEnded(now);
  }
}
