/**
 * The delivery worker: sends the events outbox to subscriptions, signed, retrying failures with backoff.
 */
import { doublingDelayMs } from '../../domain/backoff.js';
import { DELIVERY_RETRY_MAX_MS, SIGNATURE_HEADER, signatureHeader } from '../../domain/events.js';
import type { Clock, Logger, SecretBox, Timer } from '../kit/platform-ports.js';
import { PollingLoop } from '../kit/polling-loop.js';
import type { DeliveryRecord, EventRecord, EventSubscriptionRecord, Store } from '../kit/store-port.js';

/** Sends one delivery's request; throws when no answer came (DeliveryRefused for a guarded address). */
export interface EventSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<{ status: number }>;
}

/** The target is (or resolves to) an address deliveries may not reach; no connection was attempted. */
export class DeliveryRefused extends Error {
  override readonly name = 'DeliveryRefused';
}

export interface DeliverySettings {
  /** First retry after this; doubling up to an hour. */
  readonly retryBaseMs: number;
  /** A delivery still failing this long after its event is given up (FAILED). */
  readonly maxAgeMs: number;
  readonly pollMs: number;
  /** How long a claimed delivery is held by its worker before another may take it. */
  readonly leaseMs: number;
}

/** The body every subscriber gets: the event as JSON. */
export function eventBody(event: EventRecord, account: string): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    time: event.time.toISOString(),
    account: `accounts/${account}`,
    resource: event.resource,
  });
}

/**
 * Sends the outbox: PENDING deliveries whose time has come are claimed (leased, so that
 * several workers share the table), signed and POSTed; each attempt is recorded. A 2xx answer
 * ends the delivery SUCCEEDED; anything else retries with a doubling backoff until `maxAgeMs`
 * after the event, then FAILED. State lives in the store: a restart carries on.
 */
export class DeliveryWorker {
  readonly #loop: PollingLoop;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly sender: EventSender;
      readonly secretBox: SecretBox;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      readonly settings: DeliverySettings;
    },
  ) {
    this.#loop = new PollingLoop(() => this.runOnce(), {
      pollMs: deps.settings.pollMs,
      timer: deps.clock,
      logger: deps.logger,
      failure: 'events: the delivery pass failed',
    });
  }

  /** Something was published: look now rather than at the next poll. */
  notify(): void {
    this.#loop.wake();
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass over what is due (tests call it; the loop runs it). Answers how many were attempted. */
  async runOnce(): Promise<number> {
    const { store, clock, settings } = this.deps;
    const now = clock.now();
    const claimed = await store.events.claimDue(now, new Date(now.getTime() + settings.leaseMs), 20);
    await Promise.all(claimed.map((c) => this.#attempt(c.delivery, c.event, c.subscription, c.account)));
    return claimed.length;
  }

  async #attempt(
    delivery: DeliveryRecord,
    event: EventRecord,
    subscription: EventSubscriptionRecord,
    account: string,
  ): Promise<void> {
    const { store, sender, secretBox, clock, settings, logger } = this.deps;
    const body = eventBody(event, account);
    const started = clock.now();
    const unix = Math.floor(started.getTime() / 1000);
    let statusCode: number | null = null;
    let error = '';
    try {
      const answer = await sender.send(
        subscription.targetUrl,
        {
          'content-type': 'application/json',
          'user-agent': 'Atoll-Events/1',
          'atoll-event-id': event.id,
          'atoll-event-type': event.type,
          [SIGNATURE_HEADER]: signatureHeader(secretBox.open(subscription.secretSealed), unix, body),
        },
        body,
      );
      statusCode = answer.status;
      if (statusCode < 200 || statusCode > 299) error = `the receiver answered ${String(statusCode)}`;
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    const now = clock.now();
    const attempts = delivery.attempts + 1;
    const attempt = {
      time: started,
      statusCode,
      error,
      durationMs: Math.max(0, now.getTime() - started.getTime()),
    };
    const next = new Date(
      now.getTime() + doublingDelayMs(attempts, settings.retryBaseMs, DELIVERY_RETRY_MAX_MS),
    );
    const givenUp = next.getTime() - event.time.getTime() > settings.maxAgeMs;
    const state = error === '' ? 'SUCCEEDED' : givenUp ? 'FAILED' : 'PENDING';
    const recorded = await store.events.recordAttempt(
      { ...delivery, state, attempts, nextAttemptTime: state === 'PENDING' ? next : null, updateTime: now },
      attempt,
    );
    // The subscription and its deliveries were deleted while the request was in flight: nothing to record.
    if (!recorded) {
      logger.info(
        { deliveryId: delivery.id },
        'events: the subscription went during a delivery; its attempt is dropped',
      );
      return;
    }
    if (error !== '')
      logger.warn({ deliveryId: delivery.id, attempts, givenUp, error }, 'events: a delivery failed');
  }
}
