/**
 * The edge's responses keep a fast shape after an idle full collection, in a real node process: six
 * answers, then full collections while none is in flight (what an edge that answered its first health checks
 * and then idled goes through: V8's memory reducer collects twice about 8 s in), then more answers, each
 * response asked by V8 (`%HasFastProperties`) whether it is a dictionary.
 *
 * Why six: V8 sizes a constructor's objects by watching its first seven ("slack tracking"). When the seventh
 * is the first built after a collection forgot the shapes of the first six, V8 sizes them from a shape that
 * holds almost nothing, and ServerResponse's last fields (symbol keys: keyed stores, which make no new shape
 * for an object with more than 12 fields outside it) turn every response from then on into a dictionary.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runV8Probe } from '../../test/helpers/v8-probe.js';

const EDGE_URL = new URL('./edge-server.ts', import.meta.url).href;
const CLOCK_URL = new URL('../adapters/system-clock.ts', import.meta.url).href;

/** How many responses after the collections were fast and how many dictionaries, for the edge or node's own server. */
async function responsesAfterIdleCollection(
  server: 'edge' | 'node:http',
): Promise<{ fast: number; dict: number }> {
  const program = `
    const http = await import('node:http');
    const net = await import('node:net');
    const { setTimeout: sleep } = await import('node:timers/promises');
    let server;
    if (${JSON.stringify(server)} === 'edge') {
      const { Edge } = await import(${JSON.stringify(EDGE_URL)});
      const { systemClock } = await import(${JSON.stringify(CLOCK_URL)});
      const quiet = () => undefined;
      server = new Edge({
        baseDomain: 'edge.test', trustedProxies: new Set(), upstreamTimeoutMs: 1000, upstreamConnections: 1,
        cacheBytesPerEnvironment: 1024, cacheEntryMaxBytes: 1024, staticMemoryBytes: 1024, clock: systemClock,
        logger: { info: quiet, warn: quiet, error: quiet },
      }).server;
    } else {
      server = http.createServer((req, res) => res.end('none here'));
      server.keepAliveTimeout = 65000;
    }
    const isFast = new Function('o', 'return %HasFastProperties(o)');
    const seen = { fast: 0, dict: 0 };
    let counting = false;
    server.prependListener('request', (req, res) => {
      if (counting) seen[isFast(res) ? 'fast' : 'dict']++;
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    // A raw connection: an http client in this process would build OutgoingMessages too.
    const socket = net.connect(server.address().port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answered = 0;
    let waiting;
    socket.on('data', (chunk) => {
      answered += chunk.toString('latin1').split('HTTP/1.1 ').length - 1;
      waiting?.();
    });
    const ask = async (count) => {
      const until = answered + count;
      for (let i = 0; i < count; i++) socket.write('GET / HTTP/1.1\\r\\nHost: nowhere.example\\r\\n\\r\\n');
      while (answered < until) await new Promise((resolve) => { waiting = resolve; });
    };
    for (let i = 0; i < 6; i++) await ask(1);
    await sleep(20);
    for (let i = 0; i < 3; i++) globalThis.gc();
    counting = true;
    await ask(200);
    process.stdout.write(JSON.stringify(seen));
    socket.destroy();
    server.close();
    process.exit(0);
  `;
  return JSON.parse(await runV8Probe(program)) as { fast: number; dict: number };
}

describe('the edge after an idle full collection', () => {
  it('keeps its responses out of V8 dictionary mode (prevents an edge slowed to 0.6x of node:http for good)', async () => {
    // The control: node's own server, holding no response, goes through the same steps.
    const bare = await responsesAfterIdleCollection('node:http');
    assert.deepEqual(
      bare,
      { fast: 0, dict: 200 },
      'without a response held, V8 makes every response a dictionary',
    );
    const edge = await responsesAfterIdleCollection('edge');
    assert.deepEqual(edge, { fast: 200, dict: 0 });
  });
});
