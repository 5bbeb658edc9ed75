/** A real DNS server on loopback whose records tests change, for the custom domain checks. */
import dns2 from 'dns2';

const { Packet } = dns2;

type RecordType = 'A' | 'AAAA' | 'CNAME' | 'TXT';
const TYPES: Record<number, RecordType> = {
  [Packet.TYPE.A]: 'A',
  [Packet.TYPE.AAAA]: 'AAAA',
  [Packet.TYPE.CNAME]: 'CNAME',
  [Packet.TYPE.TXT]: 'TXT',
};

/**
 * A real DNS server on a loopback UDP port (the npm dns2 server) whose records a test sets and
 * changes as it goes. A name with no records at all answers NXDOMAIN; a known name asked for a
 * type it lacks answers NODATA. A CNAME is also answered to A/AAAA questions, as a resolver sees it.
 */
export class TestDnsServer {
  readonly #records = new Map<string, Map<RecordType, string[]>>();
  /** Every question asked, as "TYPE name" (tests check that lookups happened). */
  readonly questions: string[] = [];

  private constructor(
    private readonly server: ReturnType<typeof dns2.createServer>,
    readonly port: number,
  ) {}

  static async start(): Promise<TestDnsServer> {
    const state: { self?: TestDnsServer } = {};
    const server = dns2.createServer({
      udp: true,
      handle: (request, send) => {
        void send(state.self?.answer(request) ?? Packet.createResponseFromRequest(request));
      },
    });
    const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    const port = addresses.udp?.port;
    if (port === undefined) throw new Error('the DNS server has no UDP port');
    state.self = new TestDnsServer(server, port);
    return state.self;
  }

  /** `ip:port`, as ATOLL_DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${String(this.port)}`;
  }

  set(name: string, type: RecordType, values: readonly string[]): void {
    const key = name.toLowerCase();
    const records = this.#records.get(key) ?? new Map<RecordType, string[]>();
    records.set(type, [...values]);
    this.#records.set(key, records);
  }

  remove(name: string, type?: RecordType): void {
    const key = name.toLowerCase();
    if (type === undefined) this.#records.delete(key);
    else this.#records.get(key)?.delete(type);
  }

  async stop(): Promise<void> {
    await this.server.close();
  }

  answer(request: InstanceType<typeof Packet>): InstanceType<typeof Packet> {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (!question) return response;
    const name = question.name.toLowerCase();
    const type = TYPES[question.type];
    this.questions.push(`${type ?? String(question.type)} ${name}`);
    const records = this.#records.get(name);
    if (!records || [...records.values()].every((values) => values.length === 0)) {
      response.header.rcode = 3; // NXDOMAIN
      return response;
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
    const cname = records.get('CNAME') ?? [];
    if (type === 'CNAME' || ((type === 'A' || type === 'AAAA') && cname.length > 0)) {
      for (const domain of cname)
        response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain } as never);
      if (type === 'CNAME') return response;
      // The target's addresses, as a recursive resolver would add them.
      for (const target of cname)
        for (const address of this.#records.get(target.toLowerCase())?.get(type) ?? [])
          response.answers.push({ ...base, name: target, type: Packet.TYPE[type], address } as never);
      return response;
    }
    if (type === undefined) return response;
    for (const value of records.get(type) ?? []) {
      const data = type === 'TXT' ? { data: value } : { address: value };
      response.answers.push({ ...base, type: Packet.TYPE[type], ...data } as never);
    }
    return response;
  }
}
