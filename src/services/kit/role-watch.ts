/**
 * Watches the long-running loops of this process's roles, so that readiness says when one stopped.
 */
import type { Logger } from './platform-ports.js';

/**
 * The long-running loops of this process's roles (the build worker's slots): each is meant to
 * run until the platform stops. One that ends before then, with an error or without, has
 * stopped doing its work while the process still answers, so readiness names it (/readyz
 * answers 503) and the log says why, instead of builds waiting QUEUED behind a "ready".
 */
export class RoleWatch {
  readonly #stopped = new Set<string>();
  #stopping = false;

  constructor(private readonly logger: Logger) {}

  /** Follows a role's loop; the returned promise settles with it and never rejects. */
  watch(role: string, loop: Promise<void>): Promise<void> {
    return loop.then(
      () => {
        if (!this.#stopping) this.#stop(role, undefined);
      },
      (error: unknown) => {
        this.#stop(role, error);
      },
    );
  }

  /** The platform is stopping: loops that end from now on were asked to. */
  stopping(): void {
    this.#stopping = true;
  }

  /** Roles whose loop ended while they should have run, in the order they stopped. */
  stopped(): readonly string[] {
    return [...this.#stopped];
  }

  #stop(role: string, error: unknown): void {
    this.#stopped.add(role);
    this.logger.error(
      { err: error, role },
      `the ${role} role stopped: its work waits until the process restarts, and /readyz answers 503`,
    );
  }
}
