/**
 * The builds a benchmark's worker has ended, from the runner's onEnded notifications: a benchmark waits on them
 * instead of polling, so waiting costs the platform nothing.
 */
import type { ProductApi } from './product-api.js';

export class BuildEndings {
  readonly #ended = new Set<string>();
  readonly #waiting = new Map<string, () => void>();

  constructor(product: ProductApi) {
    product.services.buildRunner.onEnded((id) => {
      this.#ended.add(id);
      this.#waiting.get(id)?.();
    });
  }

  wait(buildId: string): Promise<void> {
    if (this.#ended.has(buildId)) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiting.set(buildId, resolve);
    });
  }
}
