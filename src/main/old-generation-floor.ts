/**
 * The V8 heap setting every serving process of Atoll starts with: its old generation is not collected below
 * 64 MiB (`--initial-old-space-size`). It can only be given on node's command line (V8 reads it when it sets the
 * heap up, and NODE_OPTIONS refuses it), so it is in four places: `npm start` and `npm run atoll` (package.json),
 * the `atoll` binary's first line (src/main/atoll.ts) and the edge's worker processes
 * (src/main/start-edge-worker.ts). old-generation-floor.test.ts checks all four against this one.
 */

/** Below this, V8 does not collect the old generation (it still does when the process idles: its memory reducer). */
export const OLD_GENERATION_FLOOR_MIB = 64;

export const OLD_GENERATION_FLOOR_FLAG = `--initial-old-space-size=${String(OLD_GENERATION_FLOOR_MIB)}`;

/**
 * Why. An edge proxying holds each request's objects across the app's answer, so a steady share of them outlives
 * two young-generation collections and moves to the old generation. After each full collection V8 allows that
 * generation to grow by only a few MiB (its growing factor is small when its collector is fast next to the
 * program), and when that room is smaller than the young generation (16 MiB once grown), V8 starts marking again
 * at once: an edge process holding 15 MiB went from one full collection every few seconds to 2–4 a second, for
 * good, and whether it fell into that depended on the timing of the first (docs/benchmarks.md, "the old
 * generation's floor"). With a floor well above what the process holds, the room after a collection is always
 * larger than the young generation. It costs at most the floor in garbage while busy; idle, V8's memory reducer
 * collects it.
 *
 * The node options for a child process that serves visitors: the parent's, with the floor unless the parent was
 * given one of its own (an operator's value wins, for the workers too).
 */
export function withOldGenerationFloor(execArgv: readonly string[]): string[] {
  if (execArgv.some((option) => option.startsWith('--initial-old-space-size'))) return [...execArgv];
  return [...execArgv, OLD_GENERATION_FLOOR_FLAG];
}
