/** Streaming text/plain answers with backpressure, for build and runtime logs. */
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers text/plain that `produce` writes piece by piece (logs, followed or not). `write`
 * answers false once the reader has gone, and waits while the reader is slow.
 */
export async function sendTextStream(
  request: FastifyRequest,
  reply: FastifyReply,
  produce: (write: (text: string) => boolean | Promise<boolean>) => Promise<void>,
): Promise<FastifyReply> {
  const stream = new PassThrough();
  // A stream is piped as it is; a route's string schema only documents the answer.
  void reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(stream);
  let open = true;
  request.raw.once('close', () => {
    open = false;
  });
  try {
    await produce((text) => {
      if (!open) return false;
      if (text === '') return true;
      return (
        stream.write(text) ||
        new Promise<boolean>((resolve) => {
          stream.once('drain', () => {
            resolve(open);
          });
        })
      );
    });
  } catch (error) {
    request.log.error({ err: error }, 'text stream failed');
  } finally {
    stream.end();
  }
  return reply;
}
