/**
 * The load generator, forked by run.ts so that autocannon and the servers under test do not
 * share one event loop: on a 2-core machine each gets a core of its own.
 */
import autocannon from 'autocannon';
import type { LoadReply, LoadRequest, LoadResult } from './load-protocol.js';

/** Response times of one run, kept exactly. */
class LatencySamples {
  #values = new Float64Array(1 << 16);
  #length = 0;

  add(ms: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = ms;
  }

  toArray(): Float64Array {
    return this.#values.slice(0, this.#length);
  }
}

function runLoad(request: LoadRequest): Promise<LoadResult> {
  const samples = new LatencySamples();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        connections: request.connections,
        duration: request.durationSeconds,
        headers: { ...request.headers },
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const statusCodes: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
        resolve({
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          durationSeconds: result.duration,
          statusCodes,
          latenciesMs: samples.toArray(),
        });
      },
    );
    if (request.recordLatencies) {
      // autocannon opens new connections for every run; against a saturated server the first
      // answer on each waits behind connection setup (seen up to seconds), which is not the
      // steady state of 64 keep-alive connections that the latency target is about.
      const connected = new WeakSet<object>();
      instance.on('response', (client, statusCode, _bytes, responseTimeMs) => {
        if (!connected.has(client)) {
          connected.add(client);
          return;
        }
        if (statusCode >= 200 && statusCode < 300) samples.add(responseTimeMs);
      });
    }
  });
}

function reply(message: LoadReply): void {
  process.send?.(message);
}

if (!process.send) {
  process.stderr.write('load-generator.ts is started by bench/api/run.ts (it needs an IPC channel)\n');
  process.exit(2);
}

process.on('message', (request: LoadRequest) => {
  runLoad(request).then(
    (result) => {
      reply({ id: request.id, result });
    },
    (error: unknown) => {
      reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    },
  );
});
// The parent owns this process: when it goes away (or closes the channel), so do we.
process.on('disconnect', () => process.exit(0));
