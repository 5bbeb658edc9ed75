/**
 * The edge of bench/edge in a process of its own, as in production: `Edge` from
 * src/edge/edge-server.ts with the product's settings, and three routes published:
 *
 *   h<ENV.static>.<BASE_DOMAIN>     the static site folder (StaticSite, small files from memory)
 *   h<ENV.app>.<BASE_DOMAIN>        the upstream app (its `/` answers no-store: always proxied)
 *   h<ENV.cacheable>.<BASE_DOMAIN>  the same upstream app (its `/cacheable` is kept by the web cache)
 *
 * With a third argument above 1, the edge runs as the product runs it with ATOLL_EDGE_WORKERS: this
 * process's edge and worker processes on the same port (src/edge/edge-fleet.ts).
 *
 *   node --import tsx bench/edge/edge-process.ts <site folder> <upstream port> [edge processes]
 */
import { systemClock } from '../../src/adapters/system-clock.js';
import { EdgeFleet } from '../../src/edge/edge-fleet.js';
import { startEdgeWorker } from '../../src/main/start-edge-worker.js';
import { holdTickObjectShape } from '../../src/main/tick-object-shape.js';
import { widenInliningBudget } from '../../src/main/inlining-budget.js';
import { UsageMeter } from '../../src/edge/usage-meter.js';
import { BASE_DOMAIN, ENV } from './edge-routes.js';
import { listenOnLoopback, serveChild } from './serve-child.js';

const MIB = 1024 * 1024;

serveChild('edge-process.ts', async () => {
  const [root, portText, processesText = '1'] = process.argv.slice(2);
  const upstreamPort = Number(portText);
  const processes = Number(processesText);
  if (root === undefined || !Number.isInteger(upstreamPort) || upstreamPort <= 0 || !(processes >= 1)) {
    throw new Error('usage: edge-process.ts <site folder> <upstream port> [edge processes]');
  }
  // As src/main/serve.ts does for every process of atoll serve.
  await holdTickObjectShape();
  // As src/main/serve.ts does: the product's V8 inlining budget (src/main/inlining-budget.ts).
  if (process.env.ATOLL_BENCH_DEFAULT_INLINING !== '1') widenInliningBudget();
  const quiet = () => undefined;
  // Usage is counted on every answer as in the product (src/main/compose/edge.ts); the counts go nowhere.
  const usageMeter = new UsageMeter({ add: () => Promise.resolve() }, systemClock, quiet);
  const fleet = new EdgeFleet({
    processes,
    // As src/main/compose/edge.ts starts them; the counts of the workers go nowhere either.
    startWorker: () => startEdgeWorker('silent'),
    onUsage: quiet,
    timer: systemClock,
    edge: {
      baseDomain: BASE_DOMAIN,
      trustedProxies: new Set(),
      upstreamTimeoutMs: 60_000,
      upstreamConnections: 64,
      cacheBytesPerEnvironment: 256 * MIB,
      cacheEntryMaxBytes: 8 * MIB,
      staticMemoryBytes: 32 * MIB,
      clock: systemClock,
      logger: { info: quiet, warn: quiet, error: quiet },
      onRequest: (record) => {
        usageMeter.count(record);
      },
    },
  });
  const edge = fleet.edge;
  await fleet.publish([
    { environmentId: ENV.static, buildId: 'bench-build-1', target: { kind: 'static', root } },
    { environmentId: ENV.app, buildId: 'bench-build-1', target: { kind: 'server', port: upstreamPort } },
    {
      environmentId: ENV.cacheable,
      buildId: 'bench-build-1',
      target: { kind: 'server', port: upstreamPort },
    },
  ]);
  const listening = await listenOnLoopback(edge.server);
  // The product's own keep-alive settings, not the helper's: what visitors get.
  edge.server.keepAliveTimeout = 65_000;
  edge.server.headersTimeout = 66_000;
  fleet.start({ http: edge.server });
  return {
    port: listening.port,
    close: async () => {
      await fleet.stop(1_000);
      await listening.close();
      // Retires the routes: their upstream pools close.
      await fleet.publish([]);
      await usageMeter.stop();
    },
  };
});
