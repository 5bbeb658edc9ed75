/**
 * Conversions between a datetime-local input and the ISO 8601 timestamps of the report API, which
 * counts days in the offset a schedule is given.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** `date` in the browser's time zone, as a datetime-local input writes it (`2026-12-01T09:00`). */
function localParts(date: Date): string {
  return `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The value of a datetime-local input showing the instant `iso` in the browser's time zone. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : localParts(date);
}

/** The browser's UTC offset at `date`, as ISO 8601 writes it (`+01:00`). */
function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * A datetime-local value (the browser's local time, no offset) as ISO 8601 with the browser's
 * offset at that date: `2026-12-01T09:00` → `2026-12-01T09:00:00+01:00`. The offset is what the
 * report API counts days in, so later reports keep the time of day the user chose. A time that a
 * daylight-saving change skips is moved forward as Date moves it, so the text and offset agree.
 */
export function fromLocalInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return undefined;
  return `${localParts(date)}:${pad(date.getSeconds())}${offsetOf(date)}`;
}

/** The browser's offset now, to tell the user which one a schedule will keep. */
export function currentOffset(): string {
  return offsetOf(new Date());
}

/** Tomorrow at 09:00 in the browser's time zone, as a datetime-local value. */
export function tomorrowMorning(): string {
  const date = new Date();
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  return localParts(date);
}
