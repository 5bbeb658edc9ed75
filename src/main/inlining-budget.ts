/**
 * Lets V8's optimizing compiler inline more into one function in a serving process: up to 3,000 bytes of bytecode
 * instead of V8's 920 (`--max-inlined-bytecode-size-cumulative`).
 */
import { setFlagsFromString } from 'node:v8';

/** Bytes of bytecode TurboFan may inline into one optimized function, all callees together (V8's default: 920). */
const INLINED_BYTECODE_BUDGET = 3_000;

/**
 * node:http's answer path is many small functions (the parser's callback, writeHead, end, the socket's write, the
 * ticks), and the edge's routing, static file and usage counting add more. Once their bytecode passes V8's budget,
 * the rest is called instead of inlined (how we read it: each piece of the usage counting cost the edge more than its
 * instructions). The edge served a static asset and a web-cache hit at 0.81–0.83× node's own server, at 0.85–0.90×
 * with this budget (docs/benchmarks.md, "the inlining budget"). node's own server gains as much from it, so the edge
 * stays at the same share of a server tuned alike: it buys answers per second, not a closer ceiling. V8 reads the
 * flag when it compiles a function: set before the process serves, it holds for every function optimized after.
 */
export function widenInliningBudget(): void {
  setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${String(INLINED_BYTECODE_BUDGET)}`);
}
