/**
 * The signals port across processes: PostgreSQL's LISTEN/NOTIFY, so that what one process of the
 * platform tells (a purge, a changed domain, a queued build) reaches every process on every machine.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { doublingDelayMs } from '../domain/backoff.js';
import type { Logger, Timer } from '../services/kit/platform-ports.js';
import {
  InProcessSignals,
  type SignalHandler,
  type SignalName,
  type SignalPayloads,
  type Signals,
} from '../services/kit/signals.js';

/** One channel for every signal: a process listens once, whatever it subscribes to. */
export const SIGNALS_CHANNEL = 'atoll_signals';

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; an envelope stays well below, and a
 * longer list (the blobs of many removed environments) goes in several notifications.
 */
const MAX_PAYLOAD_BYTES = 7_000;

/** How long the listener waits for the server to accept its connection before trying again. */
const CONNECT_TIMEOUT_MS = 10_000;

interface Envelope {
  /** The process that sent it: its own subscribers heard it at once, not through the server. */
  readonly from: string;
  readonly name: SignalName;
  readonly payload: unknown;
}

/** The notifications a payload travels in: one, or a list split in parts that each fit. */
function transportParts(name: SignalName, payload: unknown): unknown[] {
  if (Buffer.byteLength(JSON.stringify(payload)) <= MAX_PAYLOAD_BYTES) return [payload];
  if (name === 'environments.removed')
    return splitBlobKeys(payload as SignalPayloads['environments.removed']);
  return [payload];
}

function splitBlobKeys(payload: SignalPayloads['environments.removed']): unknown[] {
  const { blobKeys } = payload;
  if (blobKeys.length < 2) return [payload];
  const half = Math.ceil(blobKeys.length / 2);
  return [
    ...transportParts('environments.removed', { blobKeys: blobKeys.slice(0, half) }),
    ...transportParts('environments.removed', { blobKeys: blobKeys.slice(half) }),
  ];
}

export interface PostgresSignalsDeps {
  /** The PostgreSQL server: one connection listens, another (opened when needed) sends. */
  readonly connectionString: string;
  readonly logger: Logger;
  readonly timer: Timer;
}

/**
 * Signals between the processes sharing one PostgreSQL server. A publish is handed to this
 * process's subscribers at once (as InProcessSignals does, so one process behaves as before)
 * and sent with NOTIFY to the others, whose listening connection hands it to theirs. A
 * notification sent while a listener was away is lost: after every reconnection the listener
 * calls the `onResync` handlers, and the subscribers keep a periodic resync of their own, so a
 * missed notification heals within seconds.
 */
export class PostgresSignals implements Signals {
  readonly #local: InProcessSignals;
  readonly #origin = randomUUID();
  readonly #resync = new Set<() => unknown>();
  readonly #stopped = new AbortController();
  /** Sends NOTIFY: not the listening connection, so that a publish never waits for a reconnection. */
  readonly #sender: pg.Pool;
  #client: pg.Client | undefined;
  #loop: Promise<void> | undefined;

  constructor(private readonly deps: PostgresSignalsDeps) {
    this.#local = new InProcessSignals(deps.logger);
    this.#sender = new pg.Pool({ connectionString: deps.connectionString, max: 1 });
    // A connection the server ended is dropped by the pool; without a listener the event would end the process.
    this.#sender.on('error', () => undefined);
  }

  /** Connects the listener; resolves once it listens (or the first attempt failed, then it keeps trying). */
  async start(): Promise<void> {
    if (this.#loop) return;
    const first = new Promise<void>((resolve) => {
      this.#loop = this.#listen(resolve);
    });
    await first;
  }

  /** Ends the listener for good. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#client?.end().catch(() => undefined);
    await this.#loop;
    await this.#sender.end().catch(() => undefined);
  }

  /** Called after the listener reconnected: what was announced meanwhile must be read from the store. */
  onResync(handler: () => unknown): () => void {
    this.#resync.add(handler);
    return () => this.#resync.delete(handler);
  }

  async publish<N extends SignalName>(name: N, payload: SignalPayloads[N]): Promise<void> {
    const local = this.#local.publish(name, payload);
    try {
      for (const part of transportParts(name, payload)) {
        const envelope: Envelope = { from: this.#origin, name, payload: part };
        await this.#sender.query('select pg_notify($1, $2)', [SIGNALS_CHANNEL, JSON.stringify(envelope)]);
      }
    } catch (error) {
      // The other processes' periodic resync still picks the change up from the store.
      this.deps.logger.warn(
        { err: error, signal: name },
        'could not announce a signal to the other processes',
      );
    }
    await local;
  }

  subscribe<N extends SignalName>(name: N, handler: SignalHandler<N>): () => void {
    return this.#local.subscribe(name, handler);
  }

  async #listen(started: () => void): Promise<void> {
    const stopped = this.#stopped.signal;
    let failures = 0;
    let connectedBefore = false;
    while (!stopped.aborted) {
      // A server that takes the connection and never answers must not hold the listener forever.
      const client = new pg.Client({
        connectionString: this.deps.connectionString,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      });
      // A stop ends whatever this client is doing: stop() only reaches #client, which a client still
      // connecting is not yet, and ending a connection mid-handshake waits on the server's answer.
      let onAbort = (): void => undefined;
      const aborted = new Promise<void>((resolve) => {
        onAbort = () => {
          void client.end().catch(() => undefined);
          resolve();
        };
        stopped.addEventListener('abort', onAbort, { once: true });
      });
      const ended = new Promise<void>((resolve) => {
        client.once('end', resolve);
        client.once('error', (error: Error) => {
          if (!stopped.aborted)
            this.deps.logger.warn({ err: error }, 'the signals listener lost its connection');
          resolve();
        });
      });
      client.on('notification', (message) => {
        this.#receive(message.payload);
      });
      try {
        await Promise.race([this.#connect(client), aborted]);
        if (this.#isStopped()) break;
        this.#client = client;
        failures = 0;
        if (connectedBefore) this.#callResync();
        connectedBefore = true;
        started();
        await Promise.race([ended, aborted]);
      } catch (error) {
        failures += 1;
        this.deps.logger.warn(
          { err: error, failures },
          'the signals listener could not connect; trying again',
        );
        started();
      } finally {
        stopped.removeEventListener('abort', onAbort);
        this.#client = undefined;
        // After a stop the end is not awaited: a half-made connection ends at its timeout at the latest.
        const closing = client.end().catch(() => undefined);
        if (!this.#isStopped()) await closing;
      }
      // An abort (stop) ends the wait at once, and the loop with it.
      await this.deps.timer.sleep(doublingDelayMs(failures, 250, 10_000), stopped);
    }
  }

  /** Read anew at each call: a stop lands while the listener awaits. */
  #isStopped(): boolean {
    return this.#stopped.signal.aborted;
  }

  async #connect(client: pg.Client): Promise<void> {
    await client.connect();
    await client.query(`LISTEN ${SIGNALS_CHANNEL}`);
  }

  #receive(text: string | undefined): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text ?? '') as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.#origin) return;
    void this.#local.publish(envelope.name, envelope.payload as never);
  }

  #callResync(): void {
    for (const handler of this.#resync)
      void Promise.resolve()
        .then(handler)
        .catch((error: unknown) => {
          this.deps.logger.warn({ err: error }, 'a resync after the signals listener reconnected failed');
        });
  }
}
