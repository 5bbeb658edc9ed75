/**
 * How long to wait before trying again after the n-th failure in a row: `firstMs`, then
 * doubling, never more than `maxMs` (certificate issuance, event deliveries).
 */
export function doublingDelayMs(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(firstMs * 2 ** Math.max(0, failures - 1), maxMs);
}
