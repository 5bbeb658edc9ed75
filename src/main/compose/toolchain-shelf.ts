/**
 * Toolchain tarballs in the object store (`toolchains/<package>/<version>.tgz`): a Node.js or package manager
 * version one worker or runtime fetched from the registry is fetched from the store by the others. Only
 * composed when blobs are in an object store: on one machine the toolchain folder is shared already.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { ToolchainPackage, ToolchainShelf } from '../../sandbox/toolchain-provisioner.js';
import type { BlobStore } from '../../services/kit/platform-ports.js';

function keyOf(pkg: ToolchainPackage, version: string): string {
  // `@yarnpkg/cli-dist` is no key segment: its scope's @ and slash go.
  return `toolchains/${pkg.replace(/^@/, '').replace('/', '-')}/${version}.tgz`;
}

export function blobToolchainShelf(blobs: BlobStore): ToolchainShelf {
  return {
    async fetch(pkg, version, target) {
      const body = await blobs.readStream(keyOf(pkg, version));
      if (body === undefined) return false;
      await pipeline(body, createWriteStream(target, { mode: 0o600 }));
      return true;
    },
    async keep(pkg, version, tarball) {
      // Published versions never change: one already kept by another machine stays.
      if (await blobs.has(keyOf(pkg, version))) return;
      await blobs.writeStream(keyOf(pkg, version), createReadStream(tarball));
    },
  };
}
