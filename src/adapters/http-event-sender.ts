import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isPrivateAddress } from '../domain/address-rules.js';
import { DeliveryRefused, type EventSender } from '../services/delivery-worker.js';

/**
 * Sends event deliveries with undici. Unless the operator allows it, no request reaches a
 * loopback, private or link-local address: the name is resolved once, every address it has is
 * checked, and the connection goes to the address that was checked (no second lookup that a
 * rebinding DNS server could answer differently). Redirects are not followed.
 */
export class HttpEventSender implements EventSender {
  readonly #agent: Agent;

  constructor(private readonly options: { readonly allowPrivate: boolean; readonly timeoutMs: number }) {
    this.#agent = new Agent({
      connect: {
        timeout: options.timeoutMs,
        lookup: (hostname, lookupOptions, callback) => {
          dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
            if (error) {
              callback(error, '', 0);
              return;
            }
            const refused = addresses.find((a) => !this.options.allowPrivate && isPrivateAddress(a.address));
            const first = addresses[0];
            if (refused || !first) {
              callback(new DeliveryRefused(this.#refusal(hostname, refused?.address ?? 'no address')), '', 0);
              return;
            }
            if (lookupOptions.all === true) callback(null, [first] as never, first.family);
            else callback(null, first.address, first.family);
          });
        },
      },
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<{ status: number }> {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // A literal address is never looked up: it is checked here.
    if (isIP(host) !== 0 && !this.options.allowPrivate && isPrivateAddress(host))
      throw new DeliveryRefused(this.#refusal(host, host));
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

  #refusal(hostname: string, address: string): string {
    return `refused: ${hostname} resolves to ${address}, a loopback, private or link-local address (ATOLL_WEBHOOK_ALLOW_PRIVATE=1 allows it)`;
  }
}
