/**
 * Probes of ISR through the edge for the Next.js tests: the fixtures' pages print `stamp:<Date.now()>:`
 * at render, so a new stamp is a new render and the same stamp the same cached page.
 */
import { eventually, type BuildHarness } from './build-harness.js';

/** What the issue asks of on-demand revalidation: every edge serves the new page within 2 s. */
export const FRESH_WITHIN_MS = 2_000;

/** The stamp a page rendered (Date.now() at render, or in its tagged cache entry); '' without one. */
export const stampOf = (html: string): string =>
  /stamp:(?:<!-- -->)?(\d+)(?:<!-- -->)?:/.exec(html)?.[1] ?? '';

/**
 * Whether the edge serves `path` from its cache (x-cache: HIT) with `stamp`, within 30 s; `host`: another
 * environment's hostname than the harness's own.
 */
export function cachedAtEdge(h: BuildHarness, path: string, stamp: string, host?: string): Promise<boolean> {
  return eventually(async () => {
    const answer = await h.edge(path, host === undefined ? {} : { host });
    return answer.headers.get('x-cache') === 'HIT' && stampOf(await answer.text()) === stamp;
  }, 30_000);
}

/**
 * Polls the edge for `path` (of `host`) until it serves another stamp than `old`, for `withinMs`: the new stamp, or ''
 * when it did not; `seen` lists every answer (stamp, x-cache and x-nextjs-cache) for a failure's message.
 */
export async function newStampWithin(
  h: BuildHarness,
  path: string,
  old: string,
  { withinMs = FRESH_WITHIN_MS, host }: { withinMs?: number; host?: string } = {},
): Promise<{ fresh: string; seen: string[] }> {
  let fresh = '';
  const seen: string[] = [];
  const found = await eventually(async () => {
    const answer = await h.edge(path, host === undefined ? {} : { host });
    fresh = stampOf(await answer.text());
    seen.push(
      `${fresh} ${String(answer.headers.get('x-cache'))}/${String(answer.headers.get('x-nextjs-cache'))}`,
    );
    return fresh !== '' && fresh !== old;
  }, withinMs);
  return { fresh: found ? fresh : '', seen };
}
