/**
 * Scale benchmark: the platform with every role in its own processes (`atoll serve --roles <role>`, the
 * built binary) on one PostgreSQL server (DATABASE_URL, a fresh database per layout) and one S3 server
 * (s3rver, a fresh one per layout), in one run:
 *
 *   1. uploads-to-live: N uploads of the static fixture into N environments, sent at once, until every
 *      operation is done; with 1 process of each role (the baseline) and with 2 of each (1 scheduler in both);
 *   2. edge requests: a static page through 1 edge vs through 2 edges (two forked autocannon generators in
 *      both cases: both at edge 1, then one at each edge), in the 2-of-each layout;
 *   3. propagation, in the 2-of-each layout: from a redeploy's operation being done until EVERY edge serves
 *      the new version, and from a cache clear (POST …:clearCache, API processes in turn) until every edge
 *      answers the cached path of the server fixture without a HIT, and from a custom domain's
 *      :verifyTxtRecord (its TXT record set) until every edge routes it; p50/p95/p99 against the 1 s target.
 *
 * Prints rates and ratios (2-of-each against 1-of-each measured in the same run) and the percentiles, a
 * TARGET MISSED line per missed target, and exits 0; exits 1 when the run is invalid (a failed upload, a
 * wrong answer, errors under load). Every process it started is stopped (by its handle), also on failure.
 *
 *   DATABASE_URL=postgres://127.0.0.1:5432/test USER=root npm run bench:scale -- [--uploads 6] [--batches 2]
 *     [--duration 5] [--rounds 3] [--connections 16] [--route-runs 20] [--purge-runs 40]
 *     [--domain-runs 20]
 *
 * Needs `npm run build` first (dist/main/atoll.js). See docs/benchmarks.md.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { ATOLL_BIN } from '../../test/helpers/atoll-process.js';
import { LoadGeneratorProcess } from '../api/load-generator-process.js';
import type { LoadResult } from '../api/load-protocol.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
} from '../shared/bench-main.js';
import { table } from '../shared/text-table.js';
import {
  apiFor,
  createApp,
  createEnvironment,
  untilEdge,
  upload,
  waitDone,
  type Environment,
} from './deployments.js';
import { eachRole, startRoleLayout, type RoleLayout } from './role-layout.js';

const STATIC_FIXTURE = '01-static-site';
const SERVER_FIXTURE = '08-node-server';
/** The target: a route change and a purge reach every edge within 1 s (p99). */
const MAX_PROPAGATION_P99_MS = 1_000;
/** How often the benchmark asks an operation whether it is done, and an edge what it serves. */
const OPERATION_POLL_MS = 100;
const ROUTE_POLL_MS = 20;
const EDGE_POLL_MS = 5;
const EDGE_WAIT_MS = 10_000;
const WARMUP_SECONDS = 3;

const USAGE = `DATABASE_URL=postgres://… npm run bench:scale -- [options]
  --uploads <n>       uploads sent at once (default 6)
  --batches <n>       timed batches of uploads per layout (default 2)
  --duration <s>      measured seconds per edge throughput case and round (default 5)
  --rounds <n>        rounds of the two edge cases, order alternating (default 3)
  --connections <n>   autocannon connections per generator (default 16; two generators)
  --route-runs <n>    timed redeploys for the route change propagation (default 20)
  --purge-runs <n>    timed cache clears for the purge propagation (default 40)
  --domain-runs <n>   timed custom domain verifications for their propagation (default 20)`;

interface Options {
  readonly uploads: number;
  readonly batches: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly connections: number;
  readonly routeRuns: number;
  readonly purgeRuns: number;
  readonly domainRuns: number;
}

function parseOptions(argv: string[]): Options {
  const values = parseBenchArgs(argv, USAGE, {
    uploads: { type: 'string', default: '6' },
    batches: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    'route-runs': { type: 'string', default: '20' },
    'purge-runs': { type: 'string', default: '40' },
    'domain-runs': { type: 'string', default: '20' },
  });
  return {
    uploads: readInteger(values.uploads, 'uploads', 1, 50),
    batches: readInteger(values.batches, 'batches', 1, 10),
    seconds: readInteger(values.duration, 'duration', 1, 120),
    rounds: readInteger(values.rounds, 'rounds', 1, 10),
    connections: readInteger(values.connections, 'connections', 1, 512),
    routeRuns: readInteger(values['route-runs'], 'route-runs', 1, 500),
    purgeRuns: readInteger(values['purge-runs'], 'purge-runs', 1, 500),
    domainRuns: readInteger(values['domain-runs'], 'domain-runs', 1, 500),
  };
}

/** Nearest-rank percentile of the samples (ms). */
function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** A sample that never arrived (an edge that did not catch up in EDGE_WAIT_MS) is Infinity: it shows as such. */
const ms = (value: number) =>
  Number.isFinite(value) ? `${value.toFixed(0)} ms` : `> ${String(EDGE_WAIT_MS)} ms`;

/**
 * Waits for every edge; an edge that does not catch up within EDGE_WAIT_MS makes the sample Infinity (logged)
 * rather than ending the run: a missed propagation is a finding, not an invalid run.
 */
async function everyEdge(label: string, waits: readonly Promise<number>[]): Promise<number> {
  const settled = await Promise.allSettled(waits);
  const missed = settled.filter((s) => s.status === 'rejected');
  if (missed.length > 0) {
    log(
      `  ${label}: ${String(missed.length)} edge(s) not caught up: ${String((missed[0] as PromiseRejectedResult).reason)}`,
    );
    return Number.POSITIVE_INFINITY;
  }
  return Math.max(...settled.map((s) => (s as PromiseFulfilledResult<number>).value));
}
const marker = (label: string) => `${label}-${String(Date.now())}-${Math.random().toString(36).slice(2)}`;

/** Deploys the fixture into a new environment and waits until every edge serves its marker. */
async function deploy(layout: RoleLayout, n: number, fixture: string): Promise<Environment> {
  const environment = await createEnvironment(layout, n);
  const version = marker('v');
  await waitDone(layout, await upload(layout, n, environment, fixture, version), OPERATION_POLL_MS);
  // The server fixture answers only its own paths: its version shows as a 200 on /.
  const [path, served] =
    fixture === STATIC_FIXTURE
      ? ['/marker.txt', (a: { text: string }) => a.text.trim() === version]
      : ['/', (a: { status: number }) => a.status === 200];
  await Promise.all(layout.edges.map((edge) => untilEdge(edge, environment, path, served, 50, EDGE_WAIT_MS)));
  return environment;
}

/**
 * Part 1: `batches` times, `count` uploads into `count` fresh environments sent at once (API processes in
 * turn), timed from the first request until the last operation is done. One upload before, untimed, warms
 * the workers. The rate is all uploads over all the timed seconds.
 */
async function uploadsToLive(
  layout: RoleLayout,
  count: number,
  batches: number,
): Promise<{ seconds: number[]; rate: number }> {
  await createApp(layout);
  await deploy(layout, 1000, STATIC_FIXTURE);
  const seconds: number[] = [];
  for (let batch = 0; batch < batches; batch += 1) {
    const environments = await Promise.all(
      Array.from({ length: count }, (_, n) => createEnvironment(layout, batch * count + n)),
    );
    const started = performance.now();
    await Promise.all(
      environments.map(async (environment, n) => {
        const operation = await upload(layout, n, environment, STATIC_FIXTURE, marker('u'));
        await waitDone(layout, operation, OPERATION_POLL_MS);
      }),
    );
    seconds.push((performance.now() - started) / 1000);
  }
  return { seconds, rate: (count * batches) / seconds.reduce((sum, s) => sum + s, 0) };
}

interface EdgeRate {
  readonly rps: number;
  readonly p99: number;
}

/** Two generators at once, at the given edge ports: 2xx per second of both together. */
async function edgeLoad(
  generators: readonly LoadGeneratorProcess[],
  ports: readonly number[],
  host: string,
  options: Options,
  seconds: number,
): Promise<EdgeRate> {
  const results: LoadResult[] = await Promise.all(
    generators.map((generator, n) =>
      generator.run({
        url: `http://127.0.0.1:${String(ports[n % ports.length])}/`,
        headers: { host },
        connections: options.connections,
        durationSeconds: seconds,
        recordLatencies: true,
      }),
    ),
  );
  for (const result of results)
    if (result.errors + result.timeouts + result.non2xx > 0)
      throw new Error(`errors under load: ${JSON.stringify({ ...result, latenciesMs: undefined })}`);
  const latencies = results.flatMap((r) => Array.from(r.latenciesMs));
  return {
    rps: results.reduce((sum, r) => sum + r.ok / r.durationSeconds, 0),
    p99: percentile(latencies, 99),
  };
}

/** Part 2: the static page through edge 1 alone, then spread over both edges; rounds alternate the order. */
async function edgeThroughput(layout: RoleLayout, environment: Environment, options: Options) {
  const generators = [await LoadGeneratorProcess.start(), await LoadGeneratorProcess.start()];
  try {
    const [first, second] = layout.edges;
    if (!first || !second) throw new Error('part 2 needs two edges');
    const one: EdgeRate[] = [];
    const two: EdgeRate[] = [];
    // Each edge process warms up (its JIT, its copy of the site) on its own before anything counts: on a busy
    // machine a cold edge measured 300 req/s where a warm one served 1,800.
    for (const edge of [first, second])
      await edgeLoad(generators, [edge.edgePort], environment.host, options, WARMUP_SECONDS);
    for (let round = 0; round < options.rounds; round += 1) {
      const cases = [
        async () =>
          one.push(await edgeLoad(generators, [first.edgePort], environment.host, options, options.seconds)),
        async () =>
          two.push(
            await edgeLoad(
              generators,
              [first.edgePort, second.edgePort],
              environment.host,
              options,
              options.seconds,
            ),
          ),
      ];
      if (round % 2 === 1) cases.reverse();
      for (const run of cases) await run();
      log(
        `  round ${String(round + 1)}: 1 edge ${one.at(-1)?.rps.toFixed(0) ?? ''} req/s, 2 edges ${two.at(-1)?.rps.toFixed(0) ?? ''} req/s`,
      );
    }
    const middle = (rates: EdgeRate[]): EdgeRate => ({
      rps: median(rates.map((r) => r.rps)),
      p99: median(rates.map((r) => r.p99)),
    });
    return { one: middle(one), two: middle(two), rounds: one.map((r, n) => (two[n]?.rps ?? 0) / r.rps) };
  } finally {
    await Promise.all(generators.map((g) => g.close()));
  }
}

/**
 * Part 3a: redeploys of the static fixture (API processes in turn), each timed from the start of the last
 * poll that saw its operation running until every edge has served the new marker (an upper bound).
 */
async function routeChanges(layout: RoleLayout, environment: Environment, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let n = 0; n < runs; n += 1) {
    const version = marker('r');
    const operation = await upload(layout, n, environment, STATIC_FIXTURE, version);
    const { lastRunningAt } = await waitDone(layout, operation, ROUTE_POLL_MS);
    const served = await everyEdge(
      `route change ${String(n + 1)}`,
      layout.edges.map((edge) =>
        untilEdge(
          edge,
          environment,
          '/marker.txt',
          (a) => a.text.trim() === version,
          EDGE_POLL_MS,
          EDGE_WAIT_MS,
        ),
      ),
    );
    samples.push(served - lastRunningAt);
  }
  return samples;
}

/**
 * Part 3b: every edge holds /cached of the server fixture (HIT); a clear through an API process (in turn),
 * timed from sending it until every edge has answered without a HIT.
 */
async function purges(layout: RoleLayout, environment: Environment, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let n = 0; n < runs; n += 1) {
    await Promise.all(
      layout.edges.map((edge) =>
        untilEdge(
          edge,
          environment,
          '/cached',
          (a) => a.status === 200 && a.cache === 'HIT',
          20,
          EDGE_WAIT_MS,
        ),
      ),
    );
    const sent = performance.now();
    const cleared = layout.api(
      layout.apis[n % layout.apis.length]?.url ?? '',
      `/v1/${environment.path}:clearCache`,
      {
        method: 'POST',
        body: {},
      },
    );
    const missed = await everyEdge(
      `purge ${String(n + 1)}`,
      layout.edges.map((edge) =>
        untilEdge(
          edge,
          environment,
          '/cached',
          (a) => a.status === 200 && a.cache !== 'HIT',
          EDGE_POLL_MS,
          EDGE_WAIT_MS,
        ),
      ),
    );
    const answer = await cleared;
    if (answer.status >= 300) throw new Error(`clearCache answered ${answer.status}: ${answer.text}`);
    samples.push(missed - sent);
  }
  return samples;
}

/**
 * Part 3c: a new custom domain of the server fixture's environment per run (created through an API process,
 * its TXT record set), timed from sending :verifyTxtRecord through the other API process until every edge
 * routes the domain to the app.
 */
async function domainChanges(layout: RoleLayout, environment: Environment, runs: number): Promise<number[]> {
  const samples: number[] = [];
  const mappings = `/v1/${environment.path}/domainMappings`;
  const domains: string[] = [];
  for (let n = 0; n < runs; n += 1) {
    const domain = `d${String(n)}-${marker('m')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')}.bench.test`;
    domains.push(domain);
    const replaced = await layout.api(apiFor(layout, n), `${mappings}:replace`, {
      method: 'POST',
      body: { domainMappings: domains.map((d) => ({ domain: d })) },
    });
    if (replaced.status !== 200) throw new Error(`:replace answered ${replaced.status}: ${replaced.text}`);
    await waitDone(layout, String(replaced.body?.name), OPERATION_POLL_MS);
    const mapping = await layout.api(apiFor(layout, n), `${mappings}/${domain}`);
    const txt = mapping.body?.txtRecord as { name: string; value: string } | undefined;
    if (!txt) throw new Error(`the mapping of ${domain} has no TXT record: ${mapping.text}`);
    layout.dns.set(txt.name, 'TXT', [txt.value]);
    const sent = performance.now();
    const verified = layout.api(apiFor(layout, n + 1), `${mappings}/${domain}:verifyTxtRecord`, {
      method: 'POST',
    });
    const routed = await everyEdge(
      `domain ${String(n + 1)}`,
      layout.edges.map((edge) =>
        untilEdge(
          edge,
          { ...environment, host: domain },
          '/',
          (a) => a.status === 200,
          EDGE_POLL_MS,
          EDGE_WAIT_MS,
        ),
      ),
    );
    const answer = await verified;
    if (answer.body?.domainMapping?.state !== 'ACTIVE')
      throw new Error(`:verifyTxtRecord did not make ${domain} ACTIVE: ${answer.text}`);
    samples.push(routed - sent);
  }
  return samples;
}

function percentileRows(label: string, samples: readonly number[]): string[] {
  return [
    label,
    String(samples.length),
    ms(percentile(samples, 50)),
    ms(percentile(samples, 95)),
    ms(percentile(samples, 99)),
    ms(Math.max(...samples)),
  ];
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') {
    process.stderr.write(
      'bench:scale needs a PostgreSQL server: every role runs in its own processes, which share it.\n' +
        'Run it as: DATABASE_URL=postgres://127.0.0.1:5432/test USER=root npm run bench:scale\n',
    );
    return 1;
  }
  if (!existsSync(ATOLL_BIN)) {
    process.stderr.write(
      `bench:scale runs the built binary: ${ATOLL_BIN} is missing; run "npm run build" first.\n`,
    );
    return 1;
  }
  const sandbox = sandboxProblem();
  if (sandbox !== undefined) {
    process.stderr.write(`bench:scale builds and runs apps in the sandbox: ${sandbox}\n`);
    return 1;
  }
  const startedAt = performance.now();
  const machine = describeMachine();
  let current: RoleLayout | undefined;
  const removeSignalHandlers = cleanUpOnSignal('stopping the processes bench:scale started', async () => {
    await current?.stop();
  });
  try {
    log('layout 1 of each role: starting');
    current = await startRoleLayout(serverUrl, eachRole(1));
    log(`uploads-to-live with 1 of each role: ${options.batches} x ${options.uploads} uploads at once`);
    const single = await uploadsToLive(current, options.uploads, options.batches);
    await current.stop();
    current = undefined;

    log('layout 2 of each role: starting');
    current = await startRoleLayout(serverUrl, eachRole(2));
    const layout = current;
    log(`uploads-to-live with 2 of each role: ${options.batches} x ${options.uploads} uploads at once`);
    const double = await uploadsToLive(layout, options.uploads, options.batches);

    log('edge throughput: 1 edge vs 2 edges');
    const staticSite = await deploy(layout, 2000, STATIC_FIXTURE);
    const edges = await edgeThroughput(layout, staticSite, options);

    log(`route change propagation: ${options.routeRuns} redeploys`);
    const routes = await routeChanges(layout, staticSite, options.routeRuns);

    log(`purge propagation: deploying ${SERVER_FIXTURE}, then ${options.purgeRuns} cache clears`);
    const server = await deploy(layout, 3000, SERVER_FIXTURE);
    const purged = await purges(layout, server, options.purgeRuns);

    log(`custom domain propagation: ${options.domainRuns} domains verified`);
    const domains = await domainChanges(layout, server, options.domainRuns);

    const lines = [
      `bench:scale — ${machine}`,
      'every role in its own `atoll serve --roles <role>` process; one PostgreSQL server, one s3rver; 1 scheduler in both layouts',
      '',
      `1. uploads-to-live: ${options.batches} x ${options.uploads} uploads of ${STATIC_FIXTURE} at once, until every operation is done`,
      ...table([
        ['layout', 'seconds per batch', 'uploads/s'],
        [
          '1 of each role (baseline)',
          single.seconds.map((s) => s.toFixed(2)).join(', '),
          single.rate.toFixed(2),
        ],
        ['2 of each role', double.seconds.map((s) => s.toFixed(2)).join(', '), double.rate.toFixed(2)],
      ]),
      `   ratio 2-of-each / 1-of-each: ${(double.rate / single.rate).toFixed(2)}`,
      '',
      `2. edge requests: GET / of ${STATIC_FIXTURE}, 2 autocannon generators x ${options.connections} connections, median of ${options.rounds} rounds x ${options.seconds} s after a ${WARMUP_SECONDS} s warm-up of each edge`,
      ...table([
        ['edges', 'req/s', 'p99'],
        ['1 edge (both generators at it)', edges.one.rps.toFixed(0), ms(edges.one.p99)],
        ['2 edges (one generator at each)', edges.two.rps.toFixed(0), ms(edges.two.p99)],
      ]),
      `   ratio 2 edges / 1 edge: ${(edges.two.rps / edges.one.rps).toFixed(2)} (per round: ${edges.rounds.map((r) => r.toFixed(2)).join(', ')})`,
      '',
      '3. propagation to every edge (2 edges), target p99 <= 1000 ms',
      ...table([
        ['change', 'runs', 'p50', 'p95', 'p99', 'max'],
        percentileRows('route change (redeploy done -> both edges serve it)', routes),
        percentileRows('purge (clearCache sent -> both edges MISS)', purged),
        percentileRows('custom domain (verifyTxtRecord sent -> both edges route it)', domains),
      ]),
      '',
      `CPUs: ${String((await import('node:os')).cpus().length)}; with 2 cores for up to 9 platform processes, PostgreSQL, s3rver and`,
      'the load generators, a second process of a role adds no CPU: ratios near 1 are what this machine can show;',
      'they say the split layout costs little, not how far it scales on machines of their own.',
      `run took ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
    ];
    for (const [label, samples] of [
      ['route change', routes],
      ['purge', purged],
      ['custom domain', domains],
    ] as const) {
      if (percentile(samples, 99) > MAX_PROPAGATION_P99_MS)
        lines.push(
          `TARGET MISSED: ${label} p99 ${ms(percentile(samples, 99))} > ${ms(MAX_PROPAGATION_P99_MS)}`,
        );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    log('stopping every process bench:scale started');
    await current?.stop();
    removeSignalHandlers();
  }
}

runBenchmark('bench:scale', USAGE, main);
