/**
 * The signals port: what one service tells others (a build was queued, environments went) as a closed
 * map of names to plain-data payloads, so a transport between machines (LISTEN/NOTIFY) can carry them later.
 */
import type { Logger } from './platform-ports.js';

/** Every signal and what it carries: plain data only (it must survive JSON). */
export interface SignalPayloads {
  /** A build was queued: a worker looks now instead of at its next poll. */
  'build.queued': { readonly environmentId: string; readonly buildId: string };
  /** Environments went with a deletion (an app's, or one with its children): what they left can go, these blobs too. */
  'environments.removed': { readonly blobKeys: readonly string[] };
  /** An environment's httpsRedirect changed: the edge's custom-domain table carries it. */
  'https-redirect.changed': { readonly environmentId: string };
  /** Domain mappings became ACTIVE: they may need a certificate. */
  'domain.active': { readonly domains: readonly string[] };
  /** A mapping wants its certificate tried again now, whatever its backoff said. */
  'certificate.retry': { readonly domainMappingId: string };
  /** A report schedule was created or changed: a run may be due now. */
  'schedule.changed': { readonly scheduleId: string };
  /** An event notification was put in the outbox: the delivery worker sends it now. */
  'event.published': { readonly eventId: string };
  /** An environment's web cache was emptied (Clear cache, a removal): every edge empties its copy. */
  'cache.cleared': { readonly environmentId: string };
  /** Entries carrying any of the tags were purged (an app's purge, an ISR regeneration): every edge purges them. */
  'cache.purged': { readonly environmentId: string; readonly tags: readonly string[] };
  /** Custom domains or their certificates changed in the store: every edge reloads its domain table. */
  'domains.changed': Record<string, never>;
  /** A deployment waits for a runtime process (placements table): runtimes with room claim it. */
  'placement.requested': { readonly placementId: string };
  /** A placement became READY or FAILED, or went: the worker waiting for it and the edges look. */
  'placement.changed': { readonly placementId: string };
  /** An environment's live build changed: its runtime activates it, the edges reload their routes. */
  'routes.changed': { readonly environmentId: string };
}

export type SignalName = keyof SignalPayloads;

/** A subscriber; what it returns is awaited before publish() resolves. */
export type SignalHandler<N extends SignalName> = (payload: SignalPayloads[N]) => unknown;

export interface Signals {
  /**
   * Hands the payload to this process's subscribers of `name`, each called at once, in the order
   * they subscribed; resolves once they have all handled it. A subscriber's failure is logged,
   * never thrown at the sender.
   */
  publish<N extends SignalName>(name: N, payload: SignalPayloads[N]): Promise<void>;
  /** Calls `handler` with every payload of `name` published from now on; returns the unsubscribe. */
  subscribe<N extends SignalName>(name: N, handler: SignalHandler<N>): () => void;
}

/** What a service that only tells others needs. */
export type SignalSender = Pick<Signals, 'publish'>;

type Subscribers = { [N in SignalName]?: Set<SignalHandler<N>> };

/** Signals within one process: the roles `atoll serve` runs side by side. */
export class InProcessSignals implements Signals {
  readonly #subscribers: Subscribers = {};

  constructor(private readonly logger: Logger) {}

  publish<N extends SignalName>(name: N, payload: SignalPayloads[N]): Promise<void> {
    const handlers: readonly SignalHandler<N>[] = [...(this.#subscribers[name] ?? [])];
    return Promise.all(handlers.map((handler) => this.#deliver(name, handler, payload))).then(
      () => undefined,
    );
  }

  subscribe<N extends SignalName>(name: N, handler: SignalHandler<N>): () => void {
    const handlers: Set<SignalHandler<N>> = this.#subscribers[name] ?? new Set();
    (this.#subscribers as Record<N, Set<SignalHandler<N>>>)[name] = handlers;
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  async #deliver<N extends SignalName>(
    name: N,
    handler: SignalHandler<N>,
    payload: SignalPayloads[N],
  ): Promise<void> {
    try {
      await handler(payload);
    } catch (error) {
      this.logger.error({ err: error, signal: name }, 'a subscriber of a signal failed');
    }
  }
}
