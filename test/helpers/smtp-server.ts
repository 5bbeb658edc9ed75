/**
 * A real SMTP server on loopback that keeps and parses what it receives, for the site report delivery
 * tests.
 */
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';

export interface ReceivedMail {
  /** Envelope sender and recipients, as the relay saw them. */
  readonly from: string;
  readonly to: readonly string[];
  readonly parsed: Awaited<ReturnType<typeof PostalMime.parse>>;
}

/**
 * A real SMTP server on a loopback port (npm smtp-server) that keeps what it receives, parsed
 * with postal-mime. It takes AUTH PLAIN/LOGIN without TLS (loopback only), and can be told to
 * answer failures: a temporary 451 for the next messages, or a final 550 for an address.
 */
export class TestSmtpServer {
  readonly messages: ReceivedMail[] = [];
  #temporaryFailures = 0;
  #holdingReplies = false;
  readonly #rejected = new Set<string>();
  #waiters: (() => void)[] = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
    readonly user: string,
    readonly password: string,
  ) {}

  static async start(options: { user?: string; password?: string } = {}): Promise<TestSmtpServer> {
    const user = options.user ?? 'atoll';
    const password = options.password ?? 'relay-password';
    const state: { self?: TestSmtpServer } = {};
    const server = new SMTPServer({
      secure: false,
      // nodemailer would upgrade to TLS and refuse the test certificate; loopback needs none.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      size: 50 * 1024 * 1024,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === user && auth.password === password) callback(null, { user });
        else callback(new Error('Invalid username or password'));
      },
      onRcptTo(address, _session, callback) {
        if (state.self?.isRejected(address.address)) {
          const error = new Error('mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const self = state.self;
          if (self?.holdsReplies()) {
            // The relay has the whole message and keeps it, but its answer never comes: the
            // sender's connection times out or dies with the message in flight.
            PostalMime.parse(Buffer.concat(chunks)).then(
              (parsed) => {
                const from = session.envelope.mailFrom;
                self.keep({
                  from: from === false ? '' : from.address,
                  to: session.envelope.rcptTo.map((r) => r.address),
                  parsed,
                });
              },
              () => undefined,
            );
            return;
          }
          if (self && self.takeTemporaryFailure()) {
            const error = new Error('try again later') as Error & { responseCode: number };
            error.responseCode = 451;
            callback(error);
            return;
          }
          PostalMime.parse(Buffer.concat(chunks)).then(
            (parsed) => {
              const from = session.envelope.mailFrom;
              self?.keep({
                from: from === false ? '' : from.address,
                to: session.envelope.rcptTo.map((r) => r.address),
                parsed,
              });
              callback();
            },
            (error: unknown) => {
              callback(error as Error);
            },
          );
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the SMTP server has no address');
    state.self = new TestSmtpServer(server, address.port, user, password);
    return state.self;
  }

  /** ATOLL_SMTP_URL for this server. */
  get url(): string {
    return `smtp://${this.user}:${this.password}@127.0.0.1:${String(this.port)}`;
  }

  /** Forgets what was received and any failure it was told to answer: a fresh relay for the next test. */
  reset(): void {
    this.messages.length = 0;
    this.#temporaryFailures = 0;
    this.#rejected.clear();
    this.#holdingReplies = false;
  }

  /** The next `count` messages are answered 451 (try again later). */
  failTemporarily(count: number): void {
    this.#temporaryFailures = count;
  }

  /**
   * From now on, every message is kept (accepted) but its reply to DATA is never sent, as a relay
   * whose answer is lost; `false` answers the messages that come after again.
   */
  holdReplies(hold: boolean): void {
    this.#holdingReplies = hold;
  }

  holdsReplies(): boolean {
    return this.#holdingReplies;
  }

  /** Messages to this address are refused with 550, for good. */
  reject(address: string): void {
    this.#rejected.add(address.toLowerCase());
  }

  isRejected(address: string): boolean {
    return this.#rejected.has(address.toLowerCase());
  }

  takeTemporaryFailure(): boolean {
    if (this.#temporaryFailures === 0) return false;
    this.#temporaryFailures -= 1;
    return true;
  }

  keep(mail: ReceivedMail): void {
    this.messages.push(mail);
    for (const wake of this.#waiters) wake();
  }

  /** Resolves once `count` messages arrived in all; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`expected ${String(count)} messages, got ${String(this.messages.length)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.#waiters = [];
    }
    return this.messages;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
