/** Sizes for people, shared by every page that shows bytes. */

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** A size or an amount of traffic for people: `812 bytes`, `14.2 KB`, `3.1 MB` (powers of 1,024). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit] ?? ''}`;
}
