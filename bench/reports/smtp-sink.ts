/**
 * The mail relay of bench/reports, in a process of its own (as a relay would be): a real SMTP
 * server (npm smtp-server) on a loopback port that takes every message and counts it by its
 * Message-ID, so the benchmark can tell a report sent twice from one lost. It reads only the
 * header block of each message: parsing whole messages would cost more than making them.
 *
 * Protocol over the IPC channel: it sends {"port": N} once listening; asked "counts", it
 * answers {"messages": N, "ids": [[messageId, times], …]}. It exits when the channel closes.
 */
import { SMTPServer } from 'smtp-server';

/** The header block ends at the first empty line; a Message-ID is far inside this. */
const HEADER_MAX = 64 * 1024;
const MESSAGE_ID_RE = /^message-id:\s*(<[^>]+>)/im;

const counts = new Map<string, number>();
let messages = 0;

const server = new SMTPServer({
  secure: false,
  // Loopback only: no TLS, no authentication, as a local relay for the benchmark.
  disabledCommands: ['STARTTLS', 'AUTH'],
  authOptional: true,
  size: 50 * 1024 * 1024,
  logger: false,
  onData(stream, _session, callback) {
    let head = '';
    let headDone = false;
    stream.on('data', (chunk: Buffer) => {
      if (headDone) return;
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end !== -1 || head.length > HEADER_MAX) {
        headDone = true;
        if (end !== -1) head = head.slice(0, end);
      }
    });
    stream.on('end', () => {
      const id = MESSAGE_ID_RE.exec(head)?.[1]?.replace(/\s+/g, '') ?? '(no Message-ID)';
      counts.set(id, (counts.get(id) ?? 0) + 1);
      messages += 1;
      callback();
    });
  },
});

function send(message: unknown): void {
  if (!process.send) throw new Error('the SMTP sink must be started with an IPC channel');
  process.send(message);
}

process.on('message', (message) => {
  if (message === 'counts') send({ messages, ids: [...counts] });
});
process.on('disconnect', () => {
  server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the SMTP sink has no address');
  send({ port: address.port });
});
