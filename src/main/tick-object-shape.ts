/**
 * Keeps node's `process.nextTick` fast for the life of a serving process: one tick object held, so
 * that V8 never forgets the shape of tick objects.
 */
import { executionAsyncResource } from 'node:async_hooks';

/** The tick object held: never read, its being alive is the point. */
let held: object | undefined;

/**
 * node 20 builds each tick object as a literal with computed keys (`{ [async_id_symbol]: …,
 * [trigger_async_id_symbol]: …, callback, args }`). V8 remembers the object's shape after each key
 * only weakly: a full garbage collection at a moment no tick object is alive (an idle edge still
 * collects: its usage flushes and syncs allocate) forgets it, the next tick objects get a new shape,
 * and the literal's defines turn megamorphic for good, every tick object then built by V8's runtime.
 * node:http schedules 10 ticks per answer: the edge then spent about 2–3 µs more per answer, a static
 * asset at 0.65× node's own server instead of 0.9× (docs/benchmarks.md, "why the hot paths swing").
 * One tick object kept alive keeps its shapes alive. Resolves once held; later calls do nothing.
 */
export function holdTickObjectShape(): Promise<void> {
  if (held !== undefined) return Promise.resolve();
  return new Promise((resolve) => {
    process.nextTick(() => {
      // Inside a tick callback the execution resource is the tick object itself.
      held = executionAsyncResource();
      resolve();
    });
  });
}
