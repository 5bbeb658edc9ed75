/**
 * The EventSender port over undici and the guarded connector: how event deliveries reach their
 * receivers, and commit statuses their git hosts.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { DeliveryRefused, type EventSender } from '../services/events/delivery-worker.js';
import type { DnsLookup } from '../services/domains/domain-ports.js';
import { createGuardedConnector, hostAddresses, resolverOf, systemResolver } from './guarded-connector.js';

/**
 * What a delivery to a refused address records, whatever the address and whether anything
 * listens there: a delivery record that said more would let a tenant map the platform's ports.
 */
export const ADDRESS_NOT_ALLOWED =
  'address not allowed: deliveries do not go to loopback, private, link-local, reserved or documentation addresses, nor to this host (ATOLL_WEBHOOK_ALLOW_PRIVATE=1 allows them)';

/**
 * Sends event deliveries with undici. Unless the operator allows it, no connection reaches a
 * loopback, private, link-local, reserved or documentation address, nor any of this host's own:
 * the check is made by the connector, at connect time, on the address the socket goes to
 * (src/adapters/guarded-connector.ts). Redirects are not followed.
 */
export class HttpEventSender implements EventSender {
  readonly #agent: Agent;

  constructor(
    private readonly options: {
      readonly allowPrivate: boolean;
      readonly timeoutMs: number;
      /** The configured resolvers (ATOLL_DNS_SERVERS); the system's when absent. */
      readonly dns?: DnsLookup;
      /** This host's addresses; its interfaces' by default (tests name others). */
      readonly ownAddresses?: () => readonly string[];
      /** What a refused address fails with; the event deliveries' ADDRESS_NOT_ALLOWED by default. */
      readonly refusalMessage?: string;
      /** A PEM file of CAs trusted besides Node's own (ATOLL_GIT_CA_FILE for a self-hosted git host's API). */
      readonly caFile?: string | undefined;
    },
  ) {
    this.#agent = new Agent({
      connect: createGuardedConnector({
        allowPrivate: options.allowPrivate,
        timeoutMs: options.timeoutMs,
        resolve: options.dns === undefined ? systemResolver : resolverOf(options.dns),
        ownAddresses: options.ownAddresses ?? hostAddresses,
        refusal: () => new DeliveryRefused(options.refusalMessage ?? ADDRESS_NOT_ALLOWED),
        ...(options.caFile === undefined
          ? {}
          : { ca: [...rootCertificates, readFileSync(options.caFile, 'utf8')] }),
      }),
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<{ status: number }> {
    const answer = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: this.#agent,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    });
    // The receiver's body is not kept: read (to free the connection) up to a bound, then dropped.
    let read = 0;
    for await (const chunk of answer.body) {
      read += (chunk as Buffer).length;
      if (read > 65_536) {
        answer.body.destroy();
        break;
      }
    }
    return { status: answer.statusCode };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
