/** Timestamps and durations in the reader's locale, shared so every page shows times alike. */

/** A timestamp of the API in the reader's locale and time zone; '—' when absent. */
export function formatTime(iso: string | undefined | null): string {
  if (iso === undefined || iso === null || iso === '') return '—';
  return new Date(iso).toLocaleString();
}

/** The time between two timestamps (`end` absent: until now), as `1 m 05 s`. */
export function formatDuration(start: string | undefined, end?: string): string {
  if (start === undefined || start === '') return '—';
  const ms = (end === undefined || end === '' ? Date.now() : Date.parse(end)) - Date.parse(start);
  const seconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  const rest = String(seconds % 60);
  return minutes === 0 ? `${rest} s` : `${String(minutes)} m ${rest.padStart(2, '0')} s`;
}
