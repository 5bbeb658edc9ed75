/**
 * One upload built by a benchmark's worker: the .zip sent to `:upload`, then the build's end as the worker
 * reports it (no polling), its operation and its log lines.
 */
import type { BuildEndings } from './build-endings.js';
import { BENCH_ACCOUNT, type ProductApi } from './product-api.js';

export interface UploadedBuild {
  /** When the upload was sent and when the worker reported the end, in ms since the epoch. */
  readonly started: number;
  readonly finished: number;
  readonly buildId: string;
  readonly lines: readonly { readonly time: Date; readonly stream: string; readonly line: string }[];
  /** The build's log, one `stream: line` per line. */
  readonly log: string;
  /** The operation's error, undefined when the build succeeded. */
  readonly error: unknown;
}

/** Uploads `zip` to the environment of `appId` and waits for its build to end; throws if its operation is not done. */
export async function buildUpload(
  product: ProductApi,
  endings: BuildEndings,
  { appId, environment }: { appId: string; environment: string },
  zip: Buffer,
): Promise<UploadedBuild> {
  const path = `/v1/accounts/${BENCH_ACCOUNT}/apps/${appId}/environments/${environment}`;
  const form = new FormData();
  form.append('repository', new Blob([zip]), 'app.zip');
  const started = Date.now();
  const response = await fetch(`${product.url}/fu${path}:upload`, {
    method: 'POST',
    headers: { authorization: product.authorization },
    body: form,
  });
  const operation = (await response.json()) as { name?: string };
  if (response.status !== 200 || operation.name === undefined)
    throw new Error(`upload answered ${String(response.status)}: ${JSON.stringify(operation)}`);
  const buildId = operation.name.split('/').pop() ?? '';
  await endings.wait(buildId);
  const finished = Date.now();
  const poll = await fetch(`${product.url}/v1/${operation.name}`, {
    headers: { authorization: product.authorization },
  });
  const done = (await poll.json()) as { done?: boolean; error?: unknown };
  if (done.done !== true)
    throw new Error(`the build ended but its operation is not done: ${JSON.stringify(done)}`);
  const lines = await product.store.buildLogs.read(buildId, 0, 1_000_000);
  const log = lines.map((l) => `${l.stream}: ${l.line}`).join('\n');
  return { started, finished, buildId, lines, log, error: done.error };
}
