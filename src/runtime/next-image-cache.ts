/**
 * Next.js's image optimizer cache kept across deployments: `next/image` writes every optimised image
 * to `<distDir>/cache/images` and answers it from there (`X-Nextjs-Cache: HIT`), but each deployment
 * unpacks into a new folder, so without this every deployment would optimise every image again.
 * One folder per environment, bind-mounted over that path in the environment's sandbox only.
 */
import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../sandbox/command-runner.js';

/** Where Next.js's image optimizer keeps its files, under the folder the server runs in. */
const IMAGE_CACHE_PATH = '.next/cache/images';
/** The environment's image cache inside its app-caches folder. */
const ENVIRONMENT_FOLDER = 'next-images';

export interface NextImageCacheMount {
  readonly source: string;
  readonly target: string;
}

/**
 * The writable mount that keeps a Next.js server's optimised images across deployments, or
 * undefined when its folder is not plain folders (the app then keeps them per deployment).
 * `nextFolder` is where the server runs, relative to the app's folder ('' or `.next/standalone`),
 * whose `.next` the build wrote. The deployment's files are the
 * user's: every folder on the way to the mount point must be a real folder, never a link that
 * would make the platform (root) create folders or mount elsewhere; missing ones are created
 * here and handed to the environment's uid, as the app would have made them.
 */
export async function nextImageCacheMount(
  app: string,
  nextFolder: string,
  environmentCacheDir: string,
  uid: number,
  runner: Pick<CommandRunner, 'handOver'>,
): Promise<NextImageCacheMount | undefined> {
  const built = join(nextFolder, '.next');
  let target = app;
  for (const name of join(nextFolder, IMAGE_CACHE_PATH).split('/')) {
    target = join(target, name);
    const info = await lstat(target).catch(() => undefined);
    if (info === undefined) {
      // What `next build` wrote must be there: without it this is no Next.js server folder.
      if (join(app, built).startsWith(target)) return undefined;
      await mkdir(target, { mode: 0o755 });
      await runner.handOver(target, uid);
    } else if (!info.isDirectory()) {
      return undefined;
    }
  }
  const source = join(environmentCacheDir, ENVIRONMENT_FOLDER);
  await mkdir(source, { recursive: true, mode: 0o700 });
  // The leaf first: handOver leaves a folder its uid owns already as it is, without looking inside.
  await runner.handOver(source, uid);
  await runner.handOver(environmentCacheDir, uid);
  return { source, target };
}
