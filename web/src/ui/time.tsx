/** Timestamps and durations in the reader's locale, shared so every page shows times alike. */
import { Tooltip } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { useState } from 'react';

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

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** `iso` relative to `now`, as "3 minutes ago" / "just now", in the reader's language. */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  // A moment the server stamped a little ahead of this browser's clock is still "just now".
  if (seconds > 0 && seconds < 60) return 'just now';
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of UNITS)
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return Math.abs(seconds) < 10 ? 'just now' : format.format(seconds, 'second');
}

/**
 * A time shown relative to now ("5 minutes ago"), kept current, with the exact time on hover and in
 * the `<time>` element's `datetime` for assistive technology.
 */
export function RelativeTime(props: { iso: string | undefined | null }) {
  // Read at each render (a time that changes shows at once); the interval only renders it again.
  const [, setTick] = useState(0);
  const now = Date.now();
  useInterval(
    () => {
      setTick((n) => n + 1);
    },
    15_000,
    { autoInvoke: true },
  );
  if (props.iso === undefined || props.iso === null || props.iso === '') return <span>—</span>;
  return (
    <Tooltip label={formatTime(props.iso)} withArrow openDelay={300}>
      <time dateTime={props.iso} className="nowrap" title={formatTime(props.iso)}>
        {formatRelative(props.iso, now)}
      </time>
    </Tooltip>
  );
}
