/**
 * Where this process's edge adds its per-minute usage counts in the store: its own row per
 * minute (each edge process its own, so several edges never contend). The usage service reads them.
 */
import { randomUUID } from 'node:crypto';
import { mergeCounters, parseCounters, type UsageCounters } from '../../domain/hosting/usage.js';
import { ignoreDeletedEnvironment } from '../kit/deleted-environment.js';
import type { Store } from '../kit/store-port.js';

export class UsageRecorder {
  /** This process's edge, as rows name it. */
  readonly edgeId = randomUUID();

  constructor(private readonly deps: { store: Store }) {}

  async add(
    deltas: readonly { environmentId: string; minute: Date; counters: UsageCounters }[],
  ): Promise<void> {
    for (const delta of deltas) {
      await this.deps.store
        .transaction(async (tx) => {
          const stored = await tx.usage.find(delta.environmentId, delta.minute, this.edgeId);
          const merged =
            stored === undefined ? delta.counters : mergeCounters(parseCounters(stored), delta.counters);
          await tx.usage.put(delta.environmentId, delta.minute, this.edgeId, JSON.stringify(merged));
        })
        .catch(ignoreDeletedEnvironment);
    }
  }
}
