/**
 * Runs `task` for every item, in order, with at most `limit` running at once. After a task
 * rejects no new one starts; the ones in flight end, then the first rejection is thrown
 * (a task that must not stop the others catches its own errors).
 */
export async function runConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  // Boxed: a task may reject with anything, `undefined` included.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
