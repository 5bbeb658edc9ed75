/**
 * Carrying a Next.js deployment's regenerated ISR pages over to the next deployment of the same
 * artifact (a redeploy, a rollback to it). Next without a remote cache handler keeps what it
 * regenerates in its file-system cache in the deployment folder; a redeploy unpacks the artifact
 * afresh, whose build-time pages Next would serve as fresh (their age is their file time), so a
 * page revalidated on demand would come back in its pre-revalidation version. Copying the
 * regenerated files over keeps the newest version of every page.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSystemTool, type SystemToolSettings } from './system-tool.js';

/** Where the previous deployment's folder is seen inside the sandbox (read-only). */
const PREVIOUS_MOUNT = '/opt/atoll/previous';

/** The copies run as the environment's uid in the sandbox (system-tool.ts). */
export type NextCacheCarrySettings = SystemToolSettings;

async function isDirectory(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() === true;
}

async function readBuildId(dist: string): Promise<string | undefined> {
  const info = await lstat(join(dist, 'BUILD_ID')).catch(() => undefined);
  if (!info?.isFile() || info.size > 1_024) return undefined;
  return (await readFile(join(dist, 'BUILD_ID'), 'utf8').catch(() => undefined))?.trim();
}

/**
 * Copies Next's regenerated cache files of `previous` (an app folder of the live deployment) into
 * `next` (the same artifact, just unpacked), both with Next's output in `distDir`, when both hold
 * the same Next build: `server/route-cache` (where Next 15.5.27+ writes every page it
 * regenerates), the files of `server/app` and `server/pages` newer than the build's (where
 * older versions write them; `cp -u` leaves the build's own, of the same time, alone), and
 * `cache/fetch-cache` (fetch and unstable_cache data). cp runs in the sandbox as the app's uid,
 * the previous folder mounted read-only: what the app wrote there is read with its rights only.
 * Answers what it did, for the deployment log; a failure is reported, never thrown (the new
 * deployment then starts from the build's pages, as a first deployment does).
 */
export async function carryNextCache(
  previous: string,
  next: string,
  distDir: string,
  settings: NextCacheCarrySettings,
): Promise<string> {
  const previousDist = join(previous, distDir);
  const nextDist = join(next, distDir);
  const buildId = await readBuildId(nextDist);
  if (buildId === undefined || buildId === '' || (await readBuildId(previousDist)) !== buildId)
    return 'ISR: the live deployment is another Next.js build; its regenerated pages are not carried over';
  const sources: string[] = [];
  for (const name of ['route-cache', 'app', 'pages'])
    if (await isDirectory(join(previousDist, 'server', name)))
      sources.push(`${PREVIOUS_MOUNT}/${distDir}/server/${name}`);
  const fetchCache = await isDirectory(join(previousDist, 'cache', 'fetch-cache'));
  const steps: string[][] = [];
  if (sources.length > 0)
    steps.push(['cp', '-R', '-u', '--preserve=timestamps', '-t', `${distDir}/server`, ...sources]);
  if (fetchCache)
    steps.push(
      ['mkdir', '-p', `${distDir}/cache`],
      [
        'cp',
        '-R',
        '-u',
        '--preserve=timestamps',
        '-t',
        `${distDir}/cache`,
        `${PREVIOUS_MOUNT}/${distDir}/cache/fetch-cache`,
      ],
    );
  if (steps.length === 0) return 'ISR: the live deployment has no regenerated pages to carry over';
  for (const argv of steps) {
    const copied = await runSystemTool(settings, argv, {
      workDir: next,
      readOnly: [{ source: previous, target: PREVIOUS_MOUNT }],
      keptLines: 5,
    });
    if (!copied.ok)
      return `ISR: could not carry the live deployment's regenerated pages over (${copied.reason}: ${copied.output}); the app starts from the build's pages`;
  }
  return "ISR: carried the live deployment's regenerated pages over (same Next.js build)";
}
