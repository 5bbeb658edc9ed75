/**
 * A loopback receiver of event deliveries, with a signature check written from the docs rather than the
 * platform's code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver of event deliveries on loopback that records what it gets and answers what the test says. */
export class EventReceiver {
  readonly received: Received[] = [];
  /** Statuses to answer before answering 200. */
  failures: number[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<EventReceiver> {
    const state: { self?: EventReceiver } = {};
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const self = state.self;
        self?.received.push({ headers: req.headers, body });
        res.writeHead(self?.failures.shift() ?? 200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    state.self = new EventReceiver(server, `http://127.0.0.1:${String(address.port)}/hooks/atoll`);
    return state.self;
  }

  ofType(type: string): Received[] {
    return this.received.filter((r) => r.headers['atoll-event-type'] === type);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The receiver's check of Atoll-Signature, written from docs/api.md: not the platform's code. */
export function signedWith(secret: string, received: Received, toleranceSeconds = 300): boolean {
  const header = String(received.headers['atoll-signature'] ?? '');
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret)
    .update(`${String(t)}.${received.body}`)
    .digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
