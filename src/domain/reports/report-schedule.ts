/**
 * When a report schedule runs (docs/api.md "Schedules", "When it runs"). Pure: no I/O, no clock, no
 * time-zone database. A schedule is written with a fixed UTC offset, so every rule is
 * DST-free arithmetic on UTC milliseconds shifted by that offset:
 *
 * 1. `next_scheduled_date` is an ISO 8601 date-time with an offset; its calendar day and
 *    weekday are those of the local date in that offset, not of the UTC date.
 * 2. `DAYS` takes only 7 or 14: the schedule runs every 7 or 14 days on the weekday and at the
 *    time of `next_scheduled_date`.
 * 3. `MONTHLY` takes 1..31: the schedule runs on day N of every month, or on the month's last
 *    day when it has no day N; the time of day and the offset are kept.
 *
 * Parsing decisions (the API only asks for "ISO 8601 with an offset"):
 * - accepted: `YYYY-MM-DDTHH:MM`, optionally `:SS`, optionally `.f` to `.fff` after the
 *   seconds, then `Z` or `±HH:MM` or `±HHMM`;
 * - rejected: lowercase `t`/`z` (RFC 3339 allows them, but one spelling keeps stored values and
 *   comparisons simple), a space instead of `T`, date-only or offset-less values, more than
 *   three fraction digits (a Date holds milliseconds; dropping digits silently would change
 *   the instant), leap seconds (`:60`), hour 24, impossible calendar dates and offsets beyond
 *   ±14:00 (the widest offsets in use);
 * - `-00:00` is read as UTC (offset 0) and formatted back as `Z`.
 */

export type FrequencyUnit = 'DAYS' | 'MONTHLY';

export interface Frequency {
  readonly unit: FrequencyUnit;
  readonly value: number;
}

/** An instant plus the UTC offset (minutes east of UTC) it was written with. */
export interface ScheduleTime {
  readonly instant: Date;
  readonly offsetMinutes: number;
}

/** ±14:00 (Line Islands) is the widest offset in civil use; anything wider is a typo. */
const MAX_OFFSET_MINUTES = 14 * 60;

/** The DAYS values of rule 2: weekly and every two weeks. */
const DAYS_VALUES: readonly number[] = [7, 14];

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

const SCHEDULE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

/** A wall-clock date and time in a schedule's own offset; month is 1..12. */
interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly msOfDay: number;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Gregorian month lengths; February by the leap-year rule (2000 leap, 2100 not). */
function countDaysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Milliseconds since the epoch of a wall-clock time read as if it were UTC. */
function computeLocalMs(local: LocalDateTime): number {
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999.
  const midnight = new Date(0);
  midnight.setUTCFullYear(local.year, local.month - 1, local.day);
  return midnight.getTime() + local.msOfDay;
}

/** Rule 1: the calendar fields are those of the local date in the schedule's offset. */
function readLocal(time: ScheduleTime): LocalDateTime {
  const shifted = new Date(time.instant.getTime() + time.offsetMinutes * MS_PER_MINUTE);
  // The remainder taken upwards, so that instants before 1970 get a positive time of day too.
  const msOfDay = ((shifted.getTime() % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    msOfDay,
  };
}

/** The instant of a wall-clock time in `offsetMinutes`; fixed offsets make this exact (no DST gaps). */
function buildTime(local: LocalDateTime, offsetMinutes: number): ScheduleTime {
  return { instant: new Date(computeLocalMs(local) - offsetMinutes * MS_PER_MINUTE), offsetMinutes };
}

/**
 * Rule 3: day N of the month `monthsLater` months after `local`'s month (negative goes back),
 * clamped to that month's last day, at `local`'s time of day.
 */
function moveToMonthDay(local: LocalDateTime, monthsLater: number, dayOfMonth: number): LocalDateTime {
  const index = local.year * 12 + (local.month - 1) + monthsLater;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return { year, month, day: Math.min(dayOfMonth, countDaysInMonth(year, month)), msOfDay: local.msOfDay };
}

function shiftTime(time: ScheduleTime, ms: number): ScheduleTime {
  return { instant: new Date(time.instant.getTime() + ms), offsetMinutes: time.offsetMinutes };
}

/** Callers build ScheduleTimes themselves too; an Invalid Date or odd offset is a programming error. */
function requireUsableTime(time: ScheduleTime): void {
  if (!Number.isFinite(time.instant.getTime())) throw new RangeError('schedule time is an invalid date');
  if (!Number.isInteger(time.offsetMinutes) || Math.abs(time.offsetMinutes) > MAX_OFFSET_MINUTES)
    throw new RangeError(
      `schedule offset ${String(time.offsetMinutes)} is not a whole number of minutes within ±14:00`,
    );
}

/** Stepping needs an allowed frequency; bodies are checked with frequencyViolation before this. */
function requireAllowedFrequency(frequency: Frequency): void {
  const violation = frequencyViolation(frequency);
  if (violation !== undefined)
    throw new RangeError(`frequency ${frequency.unit} ${String(frequency.value)}: ${violation}`);
}

function padNumber(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** Four-digit years as ISO 8601 writes them; outside 0..9999 the expanded `±YYYYYY` form. */
function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return padNumber(year, 4);
  return (year < 0 ? '-' : '+') + padNumber(Math.abs(year), 6);
}

/**
 * Reads `next_scheduled_date` (rule 1); undefined when it is not a full date-time with an
 * offset, names an impossible date or time, or has an offset beyond ±14:00 (see the module
 * comment for the exact forms).
 */
export function parseScheduleTime(text: string): ScheduleTime | undefined {
  const match = SCHEDULE_TIME_RE.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  // '.25' is a quarter second: pad on the right before reading milliseconds.
  const millisecond = Number((fraction ?? '').padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > countDaysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetRest = Number(om);
    if (offsetRest > 59) return undefined;
    const magnitude = offsetHours * 60 + offsetRest;
    if (magnitude > MAX_OFFSET_MINUTES) return undefined;
    // -00:00 is plain UTC here; avoid -0 so that offsets compare with ===.
    offsetMinutes = sign === '-' && magnitude !== 0 ? -magnitude : magnitude;
  }
  const msOfDay = ((hour * 60 + minute) * 60 + second) * 1000 + millisecond;
  return buildTime({ year, month, day, msOfDay }, offsetMinutes);
}

/**
 * Writes a schedule time as `YYYY-MM-DDTHH:MM:SS±HH:MM` in its own offset (`Z` for offset 0),
 * so that a client reads back the wall-clock time it sent (rule 1); `.fff` only when the
 * milliseconds are not zero.
 */
export function formatScheduleTime(time: ScheduleTime): string {
  requireUsableTime(time);
  const local = readLocal(time);
  const totalSeconds = Math.floor(local.msOfDay / 1000);
  const millisecond = local.msOfDay % 1000;
  const clock =
    `${padNumber(Math.floor(totalSeconds / 3600), 2)}:${padNumber(Math.floor(totalSeconds / 60) % 60, 2)}:` +
    padNumber(totalSeconds % 60, 2) +
    (millisecond === 0 ? '' : `.${padNumber(millisecond, 3)}`);
  const magnitude = Math.abs(time.offsetMinutes);
  const offset =
    time.offsetMinutes === 0
      ? 'Z'
      : `${time.offsetMinutes < 0 ? '-' : '+'}${padNumber(Math.floor(magnitude / 60), 2)}:${padNumber(magnitude % 60, 2)}`;
  return `${formatYear(local.year)}-${padNumber(local.month, 2)}-${padNumber(local.day, 2)}T${clock}${offset}`;
}

/**
 * Why a frequency is not allowed (rules 2 and 3), or undefined when it is. The message is the
 * description of a `frequency.value` field error, so it names the rule.
 */
export function frequencyViolation(frequency: Frequency): string | undefined {
  // The type says DAYS | MONTHLY, but bodies arrive as JSON: check the unit at run time too.
  const unit: string = frequency.unit;
  const { value } = frequency;
  if (unit === 'DAYS')
    return DAYS_VALUES.includes(value)
      ? undefined
      : 'with unit DAYS the value must be 7 (weekly) or 14 (every two weeks)';
  if (unit === 'MONTHLY')
    return Number.isInteger(value) && value >= 1 && value <= 31
      ? undefined
      : 'with unit MONTHLY the value must be a whole number from 1 to 31 (the day of the month)';
  return 'the unit must be DAYS or MONTHLY';
}

/**
 * The first run on or after `time` (used when a schedule is created or its date or frequency
 * is patched). MONTHLY N (rule 3): day N of `time`'s month when that day (clamped to the
 * month's last day) is not before `time`'s day, else day N of the next month; the time of day
 * and offset are kept, so `time`'s own day qualifies whatever its time. DAYS (rule 2): the
 * weekday is `time`'s own, so `time` is already aligned and comes back unchanged.
 */
export function alignToFrequency(time: ScheduleTime, frequency: Frequency): ScheduleTime {
  requireUsableTime(time);
  requireAllowedFrequency(frequency);
  if (frequency.unit === 'DAYS') return shiftTime(time, 0);
  const local = readLocal(time);
  const thisMonth = moveToMonthDay(local, 0, frequency.value);
  const target = thisMonth.day >= local.day ? thisMonth : moveToMonthDay(local, 1, frequency.value);
  return buildTime(target, time.offsetMinutes);
}

/**
 * The run after `time`. MONTHLY N (rule 3): day N of the next month, clamped to its last
 * day; N comes from the frequency, not from `time`'s day, so 31 goes Jan 31 → Feb 28 → Mar 31
 * instead of drifting to the 28th. DAYS (rule 2): 7 or 14 days later; with a fixed offset
 * that is exactly 7 or 14 × 24 h, so the weekday and local time stay.
 */
export function nextRunTime(time: ScheduleTime, frequency: Frequency): ScheduleTime {
  return stepRunTime(time, frequency, 1);
}

/**
 * The run before `time` by the same rules as nextRunTime: the start of the period the first
 * report covers (previous of Mar 31 with MONTHLY 31 is Feb 28 or 29; DAYS: 7 or 14 days back).
 */
export function previousRunTime(time: ScheduleTime, frequency: Frequency): ScheduleTime {
  return stepRunTime(time, frequency, -1);
}

/**
 * One frequency's length before `time`, whatever day it falls on: DAYS 7 or 14 days back,
 * MONTHLY the same day of the previous month (its last day when shorter). The period of a
 * report asked for between runs.
 */
export function periodStartBefore(time: ScheduleTime, frequency: Frequency): ScheduleTime {
  requireUsableTime(time);
  requireAllowedFrequency(frequency);
  if (frequency.unit === 'DAYS') return shiftTime(time, -frequency.value * MS_PER_DAY);
  const local = readLocal(time);
  return buildTime(moveToMonthDay(local, -1, local.day), time.offsetMinutes);
}

function stepRunTime(time: ScheduleTime, frequency: Frequency, steps: number): ScheduleTime {
  requireUsableTime(time);
  requireAllowedFrequency(frequency);
  if (frequency.unit === 'DAYS') return shiftTime(time, steps * frequency.value * MS_PER_DAY);
  return buildTime(moveToMonthDay(readLocal(time), steps, frequency.value), time.offsetMinutes);
}

/**
 * The first run strictly after `now` of the sequence `time`, nextRunTime(time), … : `time`
 * itself when it is still ahead, else the next step after `now`. A platform that was down
 * sends one catch-up report and then continues from here, rather than one per missed run.
 * Long gaps are jumped arithmetically (whole periods for DAYS, whole months for MONTHLY)
 * instead of stepping run by run.
 */
export function firstRunAfter(time: ScheduleTime, frequency: Frequency, now: Date): ScheduleTime {
  requireUsableTime(time);
  requireAllowedFrequency(frequency);
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError('now is an invalid date');
  const timeMs = time.instant.getTime();
  if (timeMs > nowMs) return shiftTime(time, 0);
  if (frequency.unit === 'DAYS') {
    const periodMs = frequency.value * MS_PER_DAY;
    // k whole periods with time + k·period > now ≥ time: k = ⌊(now − time) / period⌋ + 1.
    return shiftTime(time, (Math.floor((nowMs - timeMs) / periodMs) + 1) * periodMs);
  }
  // Step k (k ≥ 1) of nextRunTime lands in the k-th month after `time`'s month; a run in a month
  // before now's month (both read in the schedule's offset) cannot be after now, so start there.
  const local = readLocal(time);
  const nowLocal = readLocal({ instant: now, offsetMinutes: time.offsetMinutes });
  let months = Math.max(1, (nowLocal.year - local.year) * 12 + (nowLocal.month - local.month));
  let run = buildTime(moveToMonthDay(local, months, frequency.value), time.offsetMinutes);
  // At most one more step: the run in now's month may be at or before now; the next month's is after.
  while (run.instant.getTime() <= nowMs) {
    months += 1;
    run = buildTime(moveToMonthDay(local, months, frequency.value), time.offsetMinutes);
  }
  return run;
}
