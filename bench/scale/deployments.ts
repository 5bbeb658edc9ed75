/**
 * What bench:scale does through the API of a layout: an app, environments, uploads of a fixture .zip
 * (with a marker file, so that the edge can tell one version from the next) and the wait for an upload's
 * operation to be done. Calls go to the API processes in turn, as a load balancer in front of them would.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import type { RunningServer } from '../../test/helpers/atoll-process.js';
import { zipFolder } from '../../test/helpers/build-harness.js';
import { ACCOUNT, type RoleLayout } from './role-layout.js';

export const APP = 'bench';
const OPERATION_TIMEOUT_MS = 240_000;

export interface Environment {
  /** `accounts/…/apps/…/environments/{id}` */
  readonly path: string;
  /** The Host the edges route to it. */
  readonly host: string;
}

/** The API process for the n-th call: round robin over the layout's API processes. */
export function apiFor(layout: RoleLayout, n: number): string {
  const api = layout.apis[n % layout.apis.length];
  if (!api) throw new Error('the layout has no api process');
  return api.url;
}

export async function createApp(layout: RoleLayout): Promise<void> {
  const app = await layout.api(apiFor(layout, 0), `/v1/accounts/${ACCOUNT}/apps?appId=${APP}`, {
    method: 'POST',
    body: { region: 'UK', uploadable: {} },
  });
  if (app.status !== 200) throw new Error(`creating the app answered ${app.status}: ${app.text}`);
}

export async function createEnvironment(layout: RoleLayout, n: number): Promise<Environment> {
  const created = await layout.api(apiFor(layout, n), `/v1/accounts/${ACCOUNT}/apps/${APP}/environments`, {
    method: 'POST',
    body: { displayName: `bench ${n}`, branch: 'uploadable' },
  });
  const id = /environments\/([^/]+)\//.exec(String(created.body?.name ?? ''))?.[1];
  if (created.status !== 200 || id === undefined)
    throw new Error(`creating an environment answered ${created.status}: ${created.text}`);
  return { path: `accounts/${ACCOUNT}/apps/${APP}/environments/${id}`, host: `h${id}.localhost` };
}

/** Uploads the fixture (plus `marker.txt` holding `marker`) through the n-th API process: the operation's name. */
export async function upload(
  layout: RoleLayout,
  n: number,
  environment: Environment,
  fixture: string,
  marker: string,
): Promise<string> {
  const form = new FormData();
  const zip = await zipFolder(fixture, undefined, { 'marker.txt': marker });
  form.append('repository', new Blob([zip]), `${fixture}.zip`);
  const answer = await fetch(`${apiFor(layout, n)}/fu/v1/${environment.path}:upload`, {
    method: 'POST',
    headers: { authorization: layout.authorization },
    body: form,
  });
  const body = (await answer.json()) as { name?: string };
  if (answer.status !== 200 || body.name === undefined)
    throw new Error(`the upload answered ${answer.status}: ${JSON.stringify(body)}`);
  return body.name;
}

/**
 * Polls the operation every `everyMs` (through the API processes in turn) until it is done; throws if it
 * failed. Answers when the last poll that still saw it running started: the operation was done after that
 * moment, so a time measured from it is an upper bound.
 */
export async function waitDone(
  layout: RoleLayout,
  operation: string,
  everyMs: number,
): Promise<{ lastRunningAt: number }> {
  const deadline = performance.now() + OPERATION_TIMEOUT_MS;
  let lastRunningAt = performance.now();
  for (let n = 0; ; n += 1) {
    const askedAt = performance.now();
    const answer = await layout.api(apiFor(layout, n), `/v1/${operation}`);
    if (answer.body?.done === true) {
      if (answer.body.error !== undefined)
        throw new Error(`operation ${operation} failed: ${JSON.stringify(answer.body.error)}`);
      return { lastRunningAt };
    }
    if (answer.status !== 200) throw new Error(`GET ${operation} answered ${answer.status}: ${answer.text}`);
    lastRunningAt = askedAt;
    if (askedAt > deadline) throw new Error(`operation ${operation} not done in ${OPERATION_TIMEOUT_MS} ms`);
    await sleep(everyMs);
  }
}

/** One GET through an edge with the environment's Host (fetch cannot set one). */
export async function viaEdge(
  edge: RunningServer,
  environment: Environment,
  path: string,
): Promise<{ status: number; text: string; cache: string | undefined }> {
  const answer = await request(`http://127.0.0.1:${String(edge.edgePort)}${path}`, {
    headers: { host: environment.host },
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  const cache = answer.headers['x-cache'];
  return { status: answer.statusCode, text: await answer.body.text(), cache: cache?.toString() };
}

/**
 * Polls one edge every `everyMs` until `check` holds for its answer: when the answer that held arrived
 * (performance.now()). Throws after `timeoutMs`.
 */
export async function untilEdge(
  edge: RunningServer,
  environment: Environment,
  path: string,
  check: (answer: { status: number; text: string; cache: string | undefined }) => boolean,
  everyMs: number,
  timeoutMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await viaEdge(edge, environment, path).catch(() => undefined);
    const at = performance.now();
    if (answer !== undefined && check(answer)) return at;
    if (at > deadline)
      throw new Error(`edge :${String(edge.edgePort)} did not serve the expected ${path} in ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
