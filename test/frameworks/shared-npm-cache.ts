/**
 * One npm cache folder for every app of the framework suite. Each environment has its own package store
 * (`<data>/cache/environments/<env>/npm`, handed to the environment's uid at each build); the suite lends
 * one folder to each app's environment in turn, so that React, Vite, esbuild and friends come from the
 * registry once per run, not once per app.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export class SharedNpmCache {
  readonly #shared: string;

  /**
   * `folder` may be kept between runs (ATOLL_FRAMEWORKS_NPM_CACHE): it must be on the data folder's file
   * system, since it is moved, not copied.
   */
  constructor(
    private readonly dataDir: string,
    folder = join(dataDir, 'cache', 'framework-suite-npm'),
  ) {
    this.#shared = folder;
  }

  #storeOf(envId: string): string {
    return join(this.dataDir, 'cache', 'environments', envId, 'npm');
  }

  /** Before the environment's first build: the shared folder becomes its npm store. */
  async lendTo(envId: string): Promise<void> {
    if (!existsSync(this.#shared)) return;
    const store = this.#storeOf(envId);
    await mkdir(dirname(store), { recursive: true, mode: 0o755 });
    await rename(this.#shared, store);
  }

  /** After the environment's last build: its npm store, grown by what it fetched, goes back. */
  async takeBack(envId: string): Promise<void> {
    const store = this.#storeOf(envId);
    if (!existsSync(store)) return;
    await mkdir(dirname(this.#shared), { recursive: true, mode: 0o755 });
    await rename(store, this.#shared);
  }
}
