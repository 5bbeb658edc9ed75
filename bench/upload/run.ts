/**
 * Upload benchmark: a ~200 MiB .zip sent as multipart/form-data to the product API's direct
 * upload (`POST /fu/v1/…/environments/{env}:upload`) and, in the same run, the same bytes to a
 * bare node:http sink that only streams the body to a file. Both servers run in processes of
 * their own, forked from here, and sample their own memory. Prints MiB/s per round and the
 * median, the ratio API/sink and the API's peak RSS growth over its pre-upload baseline; prints
 * a TARGET MISSED line per missed target and exits 0, or 1 when the run itself is invalid
 * (setup failure, an answer other than 200, a short write).
 *
 *   npm run bench:upload -- [--size-mb 200] [--files 256] [--rounds 5]
 *
 * See docs/benchmarks.md.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProbeReport } from './child-protocol.js';
import { SAMPLE_INTERVAL_MS } from './server-probe.js';
import { postMultipartArchive, type UploadResult } from './multipart-upload.js';
import { ServerProcess } from './server-process.js';
import { writeUploadArchive, type UploadArchive } from './upload-archive.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
} from '../shared/bench-main.js';
import { targetVerdicts } from '../shared/target-verdicts.js';
import { table } from '../shared/text-table.js';

/** The targets: API at least half the bare sink's MiB/s; at most 64 MiB of RSS growth. */
const MIN_RATIO_TO_SINK = 0.5;
const MAX_RSS_GROWTH_MIB = 64;
const MIB = 1024 * 1024;
/** Pause before each upload, so that the previous one's file writes and frees are behind us. */
const SETTLE_MS = 500;

const USAGE = `npm run bench:upload -- [options]
  --size-mb <n>  size of the archive in MiB (default 200)
  --files <n>    random-data files stored in it (default 256, plus an index.html)
  --rounds <n>   rounds; each uploads once to the sink and once to the API, order alternating (default 5)`;

interface BenchOptions {
  readonly sizeMiB: number;
  readonly files: number;
  readonly rounds: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    'size-mb': { type: 'string', default: '200' },
    files: { type: 'string', default: '256' },
    rounds: { type: 'string', default: '5' },
  });
  return {
    sizeMiB: readInteger(values['size-mb'], 'size-mb', 1, 4096),
    files: readInteger(values.files, 'files', 1, 10_000),
    rounds: readInteger(values.rounds, 'rounds', 1, 20),
  };
}

type TargetKey = 'sink' | 'api';

interface RoundResult {
  readonly upload: UploadResult;
  readonly probe: ProbeReport;
}

const mibPerSecond = (r: RoundResult) => r.upload.bodyBytes / MIB / (r.upload.totalMs / 1000);
/** The higher of the sampled peak and the kernel's high-water mark, over the baseline. */
const peakGrowth = (m: ProbeReport) => Math.max(m.sampledPeakRss, m.kernelPeakRss ?? 0) - m.baselineRss;
const mib = (bytes: number, digits = 1) => (bytes / MIB).toFixed(digits);

/** Why an answer of the sink is not a full receipt of the body, or undefined. */
function checkSinkAnswer(upload: UploadResult): string | undefined {
  if (upload.status !== 200) return `answered ${upload.status}: ${upload.text.slice(0, 300)}`;
  const body = JSON.parse(upload.text) as { bytes?: number; path?: string };
  if (body.bytes !== upload.bodyBytes) return `wrote ${body.bytes} of ${upload.bodyBytes} bytes`;
  if (body.path === undefined || statSync(body.path).size !== upload.bodyBytes) {
    return `the received file is not ${upload.bodyBytes} bytes`;
  }
  rmSync(body.path);
  return undefined;
}

/**
 * Why an answer of the API is not a stored upload of this archive, or undefined: a 200 with
 * an operation, a QUEUED build of exactly these bytes, the blob in the store, no temp file
 * left. The blob is then removed so that every round stores a new source, as a new upload does.
 */
async function checkApiAnswer(
  upload: UploadResult,
  api: ServerProcess,
  archive: UploadArchive,
  dataDir: string,
): Promise<string | undefined> {
  if (upload.status !== 200) return `answered ${upload.status}: ${upload.text.slice(0, 300)}`;
  const operation = JSON.parse(upload.text) as {
    name?: string;
    done?: boolean;
    metadata?: { build?: string };
  };
  const build = operation.metadata?.build;
  if (operation.name === undefined || !/\/operations\/[^/]+$/.test(operation.name) || build === undefined) {
    return `answered 200 without an operation: ${upload.text.slice(0, 300)}`;
  }
  const response = await fetch(`${api.ready.url}/v1/${build}`, {
    headers: { authorization: api.ready.authorization },
  });
  const record = (await response.json()) as { state?: string; sourceBytes?: number; sourceDigest?: string };
  if (response.status !== 200 || record.state !== 'QUEUED') {
    return `GET /v1/${build} answered ${response.status}, state ${record.state ?? '?'}`;
  }
  if (record.sourceBytes !== archive.bytes || record.sourceDigest !== `sha256:${archive.sha256}`) {
    return `the build's source is ${record.sourceBytes ?? '?'} bytes ${record.sourceDigest ?? '?'}, not the archive`;
  }
  const blob = join(dataDir, 'blobs', 'sources', `${archive.sha256}.zip`);
  if (!existsSync(blob) || statSync(blob).size !== archive.bytes)
    return `the stored source ${blob} is missing`;
  rmSync(blob);
  const tmp = join(dataDir, 'tmp');
  const leftovers = existsSync(tmp) ? readdirSync(tmp) : [];
  if (leftovers.length > 0) return `temp files left behind: ${leftovers.join(', ')}`;
  return undefined;
}

const LABELS: Record<TargetKey, string> = {
  sink: 'bare sink (node:http → file)',
  api: 'API POST /fu/v1/…/environments/{env}:upload',
};

/** The API's upload limit for the run (ATOLL_UPLOAD_MAX_BYTES, also in the report): twice the archive, at least 1 GiB. */
const maxArchiveBytesFor = (archive: UploadArchive) => String(Math.max(2 * archive.bytes, 1024 * MIB));

/** What one run measured, for the report. */
interface RunOutcome {
  readonly options: BenchOptions;
  readonly machine: string;
  readonly archive: UploadArchive;
  readonly results: Record<TargetKey, RoundResult[]>;
  readonly invalid: readonly string[];
}

/** The table, the verdict per target and the summary line, as printed on stdout. */
function reportLines(run: RunOutcome): string[] {
  const { options, machine, archive, results, invalid } = run;
  const rows = [
    [
      'target',
      'MiB/s',
      'per round',
      'answer after body ms',
      'server CPU ms',
      'RSS before MiB',
      'peak RSS growth MiB',
      'per round',
      'buffers growth MiB',
      'heap growth MiB',
    ],
    ...(['sink', 'api'] as const).map((key) => {
      const rounds = results[key];
      const worst = Math.max(...rounds.map((r) => peakGrowth(r.probe)));
      return [
        LABELS[key],
        median(rounds.map(mibPerSecond)).toFixed(0),
        rounds.map((r) => mibPerSecond(r).toFixed(0)).join(' / '),
        median(rounds.map((r) => r.upload.totalMs - r.upload.bodySentMs)).toFixed(0),
        median(rounds.map((r) => r.probe.cpuMicros / 1000)).toFixed(0),
        mib(median(rounds.map((r) => r.probe.baselineRss))),
        mib(worst),
        rounds.map((r) => mib(peakGrowth(r.probe))).join(' / '),
        mib(Math.max(...rounds.map((r) => r.probe.peakArrayBuffers - r.probe.baselineArrayBuffers))),
        mib(Math.max(...rounds.map((r) => r.probe.peakHeapUsed - r.probe.baselineHeapUsed))),
      ];
    }),
  ];
  const ratio = median(results.api.map(mibPerSecond)) / median(results.sink.map(mibPerSecond));
  const apiGrowthMiB = Math.max(...results.api.map((r) => peakGrowth(r.probe))) / MIB;
  const sinkGrowthMiB = Math.max(...results.sink.map((r) => peakGrowth(r.probe))) / MIB;
  const kernelPeaks = results.api.every((r) => r.probe.kernelPeakRss !== null);

  const { verdicts, missed, judge, block } = targetVerdicts();
  judge(
    ratio >= MIN_RATIO_TO_SINK,
    `API ${ratio.toFixed(2)}x the bare sink's MiB/s (target >= ${MIN_RATIO_TO_SINK}x)`,
  );
  judge(
    apiGrowthMiB <= MAX_RSS_GROWTH_MIB,
    `API peak RSS growth ${apiGrowthMiB.toFixed(1)} MiB over its pre-upload baseline (target <= ${MAX_RSS_GROWTH_MIB} MiB)`,
  );

  const lines = [
    '',
    `atoll upload benchmark (bench/upload), ${machine}`,
    `  archive: ${archive.bytes} bytes (${mib(archive.bytes)} MiB), ${archive.entries} entries stored (random data), ` +
      `multipart body ${results.api[0]?.upload.bodyBytes ?? '?'} bytes, streamed from the file by node:http with Content-Length`,
    `  servers: each in its own forked process on 127.0.0.1; API as served (embedded PGlite in a temp folder, ` +
      `ATOLL_UPLOAD_MAX_BYTES=${maxArchiveBytesFor(archive)}); sink: node:http piping the body to a file`,
    `  ${options.rounds} round(s), each one upload per target (order alternating), after a 1 MiB warm-up upload each; ` +
      `MiB/s: body bytes / (request start → last byte of the answer)`,
    `  RSS growth: peak over the baseline taken after a full GC right before the upload; peak = max of ` +
      `process.memoryUsage() every ${SAMPLE_INTERVAL_MS} ms${kernelPeaks ? ' and the kernel VmHWM (reset at the baseline)' : ''}`,
    `  server CPU ms: CPU time of the server process (all threads) from the baseline to the answer`,
    '',
    ...table(rows),
    '',
    `ratio API / bare sink (median MiB/s): ${ratio.toFixed(2)}x`,
    `peak RSS growth: API ${apiGrowthMiB.toFixed(1)} MiB, bare sink ${sinkGrowthMiB.toFixed(1)} MiB (worst round)`,
    '',
    ...block(invalid),
    `summary: API ${median(results.api.map(mibPerSecond)).toFixed(0)} MiB/s, sink ${median(results.sink.map(mibPerSecond)).toFixed(0)} MiB/s, ` +
      `ratio ${ratio.toFixed(2)}x (target >= ${MIN_RATIO_TO_SINK}x); API peak RSS growth ${apiGrowthMiB.toFixed(1)} MiB ` +
      `(target <= ${MAX_RSS_GROWTH_MIB} MiB); ${verdicts.length - missed.length} of ${verdicts.length} targets met`,
  ];
  return lines;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = Date.now();
  const machine = describeMachine();
  const root = mkdtempSync(join(tmpdir(), 'atoll-bench-upload-'));
  const dataDir = join(root, 'api');
  const sinkDir = join(root, 'sink');
  mkdirSync(sinkDir);
  const servers: ServerProcess[] = [];
  // Ctrl-C still stops the servers (those still starting too) and removes the temp folder.
  const endSignalCleanUp = cleanUpOnSignal('cleaning up', () =>
    ServerProcess.killAll().finally(() => {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    }),
  );
  try {
    let phaseStart = Date.now();
    const phase = (what: string) => {
      log(`${what} in ${((Date.now() - phaseStart) / 1000).toFixed(1)} s`);
      phaseStart = Date.now();
    };
    const archive = await writeUploadArchive(join(root, 'code.zip'), options.sizeMiB * MIB, options.files);
    const warmup = await writeUploadArchive(join(root, 'warmup.zip'), MIB, 4);
    phase(`wrote a ${mib(archive.bytes)} MiB archive of ${archive.entries} stored entries`);
    const maxArchiveBytes = maxArchiveBytesFor(archive);
    const [sink, api] = await Promise.all([
      ServerProcess.start('./bare-sink.ts', [sinkDir]),
      ServerProcess.start('./api-server.ts', [dataDir, maxArchiveBytes]),
    ]);
    servers.push(sink, api);
    phase(
      `started the sink (pid ${sink.pid ?? '?'}) and the API (pid ${api.pid ?? '?'}, PGlite migrated and seeded)`,
    );

    const targets: Record<TargetKey, { server: ServerProcess; label: string }> = {
      sink: { server: sink, label: LABELS.sink },
      api: { server: api, label: LABELS.api },
    };
    const invalid: string[] = [];
    const upload = async (key: TargetKey, file: UploadArchive): Promise<RoundResult> => {
      const { server } = targets[key];
      await sleep(SETTLE_MS);
      await server.startProbe();
      const result = await postMultipartArchive({
        url: `${server.ready.url}${server.ready.path}`,
        authorization: api.ready.authorization,
        archivePath: file.path,
        archiveBytes: file.bytes,
      });
      const probe = await server.readProbe();
      const problem =
        key === 'sink' ? checkSinkAnswer(result) : await checkApiAnswer(result, api, file, dataDir);
      if (problem) invalid.push(`${targets[key].label}: ${problem}`);
      return { upload: result, probe };
    };

    // One small upload each first: code paths compiled, modules loaded, the credential cached.
    await upload('sink', warmup);
    await upload('api', warmup);
    phase('warm-up upload of 1 MiB to each');

    const results: Record<TargetKey, RoundResult[]> = { sink: [], api: [] };
    for (let round = 1; round <= options.rounds; round++) {
      // Alternating order: neither target always runs right after the other's writes.
      const order: TargetKey[] = round % 2 === 1 ? ['sink', 'api'] : ['api', 'sink'];
      for (const key of order) {
        const result = await upload(key, archive);
        results[key].push(result);
        log(
          `round ${round}/${options.rounds} ${targets[key].label}: ${mibPerSecond(result).toFixed(0)} MiB/s, ` +
            `${(result.upload.totalMs / 1000).toFixed(2)} s, peak RSS +${mib(peakGrowth(result.probe))} MiB`,
        );
      }
    }

    const lines = reportLines({ options, machine, archive, results, invalid });
    process.stdout.write(`${lines.join('\n')}\n`);
    log(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    return invalid.length > 0 ? 1 : 0;
  } finally {
    endSignalCleanUp();
    await Promise.all(servers.map((server) => server.close()));
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

runBenchmark('bench:upload', USAGE, main);
