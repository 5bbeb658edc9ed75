import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  alignToFrequency,
  firstRunAfter,
  formatScheduleTime,
  frequencyViolation,
  nextRunTime,
  parseScheduleTime,
  periodStartBefore,
  previousRunTime,
  type Frequency,
  type FrequencyUnit,
  type ScheduleTime,
} from './report-schedule.js';

// Seed 001, scheduling rules 1–3: local dates in the schedule's own offset; DAYS 7 or 14;
// MONTHLY N on day N or the month's last day.

const DAY_MS = 86_400_000;

function parseTime(text: string): ScheduleTime {
  const time = parseScheduleTime(text);
  assert.ok(time, `expected ${text} to parse`);
  return time;
}

function frequencyOf(unit: FrequencyUnit, value: number): Frequency {
  return { unit, value };
}

/** The wall clock of a schedule time, read independently of the module. */
function readLocalClock(time: ScheduleTime): {
  year: number;
  month: number;
  day: number;
  weekday: number;
  msOfDay: number;
} {
  const shifted = new Date(time.instant.getTime() + time.offsetMinutes * 60_000);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    weekday: shifted.getUTCDay(),
    msOfDay:
      shifted.getTime() - Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate()),
  };
}

/** Month lengths from the platform's own calendar (years ≥ 100), to check the module against. */
function countDaysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function stepNext(text: string, frequency: Frequency, steps: number): string[] {
  const runs: string[] = [];
  let time = parseTime(text);
  for (let i = 0; i < steps; i += 1) {
    time = nextRunTime(time, frequency);
    runs.push(formatScheduleTime(time));
  }
  return runs;
}

/** firstRunAfter by definition: step with nextRunTime until past now. */
function findRunByStepping(time: ScheduleTime, frequency: Frequency, now: Date): ScheduleTime {
  let run = time;
  while (run.instant.getTime() <= now.getTime()) run = nextRunTime(run, frequency);
  return run;
}

/** A small deterministic generator, so that property loops are reproducible. */
function makeRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('parseScheduleTime', () => {
  it('reads a date-time with an offset as its instant and offset', () => {
    const time = parseTime('2026-12-01T09:00:00+02:00');
    assert.equal(time.instant.toISOString(), '2026-12-01T07:00:00.000Z');
    assert.equal(time.offsetMinutes, 120);
  });

  it('reads Z as offset 0', () => {
    const time = parseTime('2026-12-01T09:00:00Z');
    assert.equal(time.instant.toISOString(), '2026-12-01T09:00:00.000Z');
    assert.equal(time.offsetMinutes, 0);
  });

  it('reads milliseconds and negative half-hour offsets', () => {
    const time = parseTime('2026-12-01T09:00:00.250-05:30');
    assert.equal(time.instant.toISOString(), '2026-12-01T14:30:00.250Z');
    assert.equal(time.offsetMinutes, -330);
  });

  it('reads one to three fraction digits as fractions of a second', () => {
    assert.equal(parseTime('2026-12-01T09:00:00.2Z').instant.getUTCMilliseconds(), 200);
    assert.equal(parseTime('2026-12-01T09:00:00.25Z').instant.getUTCMilliseconds(), 250);
    assert.equal(parseTime('2026-12-01T09:00:00.025Z').instant.getUTCMilliseconds(), 25);
    assert.equal(parseTime('2026-12-01T09:00:00.000Z').instant.getUTCMilliseconds(), 0);
  });

  it('accepts a time without seconds', () => {
    assert.equal(parseTime('2026-12-01T09:00Z').instant.toISOString(), '2026-12-01T09:00:00.000Z');
    assert.equal(parseTime('2026-12-01T09:07+01:00').instant.toISOString(), '2026-12-01T08:07:00.000Z');
  });

  it('accepts ±HHMM offsets as well as ±HH:MM', () => {
    assert.deepEqual(parseTime('2026-12-01T09:00:00+0200'), parseTime('2026-12-01T09:00:00+02:00'));
    assert.deepEqual(parseTime('2026-12-01T09:00:00-0930'), parseTime('2026-12-01T09:00:00-09:30'));
    assert.equal(parseTime('2026-12-01T09:00:00+0545').offsetMinutes, 345);
  });

  it('reads -00:00 and +00:00 as UTC, with a plain 0 offset (not -0)', () => {
    for (const text of [
      '2026-12-01T09:00:00-00:00',
      '2026-12-01T09:00:00+00:00',
      '2026-12-01T09:00:00-0000',
    ]) {
      const time = parseTime(text);
      assert.ok(Object.is(time.offsetMinutes, 0), text);
      assert.equal(time.instant.toISOString(), '2026-12-01T09:00:00.000Z');
    }
  });

  it('accepts offsets up to ±14:00', () => {
    assert.equal(parseTime('2026-12-01T09:00:00+14:00').offsetMinutes, 840);
    assert.equal(parseTime('2026-12-01T09:00:00-14:00').offsetMinutes, -840);
    assert.equal(parseTime('2026-12-01T09:00:00-12:00').offsetMinutes, -720);
    assert.equal(parseTime('2026-12-01T09:00:00+13:59').offsetMinutes, 839);
  });

  it('accepts leap days of leap years only (2028, 2000; not 2026, 2100)', () => {
    assert.equal(parseTime('2028-02-29T00:00:00Z').instant.toISOString(), '2028-02-29T00:00:00.000Z');
    assert.equal(parseTime('2000-02-29T00:00:00Z').instant.toISOString(), '2000-02-29T00:00:00.000Z');
    assert.equal(parseScheduleTime('2026-02-29T00:00:00Z'), undefined);
    assert.equal(parseScheduleTime('2100-02-29T00:00:00Z'), undefined);
    assert.equal(parseScheduleTime('1900-02-29T00:00:00Z'), undefined);
  });

  it('accepts the last moments of days, months and years', () => {
    assert.equal(parseTime('2026-12-31T23:59:59.999Z').instant.toISOString(), '2026-12-31T23:59:59.999Z');
    assert.equal(parseTime('2026-04-30T23:59:59Z').instant.toISOString(), '2026-04-30T23:59:59.000Z');
    assert.equal(parseTime('2026-01-01T00:00:00Z').instant.toISOString(), '2026-01-01T00:00:00.000Z');
  });

  it('keeps two-digit-century years as written (0099 is not 1999)', () => {
    assert.equal(parseTime('0099-03-01T00:00:00Z').instant.getUTCFullYear(), 99);
    assert.equal(parseTime('0000-01-01T00:00:00Z').instant.getUTCFullYear(), 0);
  });

  it('moves the instant across the UTC date line with the offset', () => {
    assert.equal(parseTime('2026-01-31T23:30:00-05:00').instant.toISOString(), '2026-02-01T04:30:00.000Z');
    assert.equal(parseTime('2026-01-01T05:00:00+14:00').instant.toISOString(), '2025-12-31T15:00:00.000Z');
  });

  it('rejects everything that is not a full date-time with an offset', () => {
    for (const text of [
      '',
      ' ',
      'junk',
      'now',
      'tomorrow at 9',
      '2026-12-01',
      '2026-12-01T09:00:00',
      '2026-12-01T09:00',
      '2026-12-01T09',
      '2026-12-01T09Z',
      '2026-12-01T9:00:00Z',
      '2026-12-1T09:00:00Z',
      '26-12-01T09:00:00Z',
      '+02026-12-01T09:00:00Z',
      '20261201T090000Z',
      '2026-12-01 09:00:00Z',
      '2026-12-01T09:00:00 Z',
      ' 2026-12-01T09:00:00Z',
      '2026-12-01T09:00:00Z ',
      '2026-12-01T09:00:00Z\n',
      '2026/12/01T09:00:00Z',
      '2026-12-01T09.00.00Z',
      '2026-12-01T09:00:00.Z',
      '2026-12-01T09:00:00,250Z',
      '2026-12-01T09:00:00.1234Z',
      '2026-12-01T09:00.250Z',
      '2026-12-01T09:00:00+02',
      '2026-12-01T09:00:00+2:00',
      '2026-12-01T09:00:00+02:0',
      '2026-12-01T09:00:00+020',
      '2026-12-01T09:00:00+02:00:00',
      '2026-12-01T09:00:00±02:00',
      '2026-12-01T09:00:00+02:00Z',
      '2026-12-01T09:00:00ZZ',
      '2026-12-01T09:00:00UTC',
      '2026-12-01T09:00:00GMT+2',
      '2026-12-01T09:00:00+02:00[Europe/Paris]',
      '２０２６-12-01T09:00:00Z',
    ]) {
      assert.equal(parseScheduleTime(text), undefined, JSON.stringify(text));
    }
  });

  it('rejects impossible calendar dates and clock times', () => {
    for (const text of [
      '2026-00-01T09:00:00Z',
      '2026-13-01T09:00:00Z',
      '2026-12-00T09:00:00Z',
      '2026-12-32T09:00:00Z',
      '2026-04-31T09:00:00Z',
      '2026-06-31T09:00:00Z',
      '2026-09-31T09:00:00Z',
      '2026-11-31T09:00:00Z',
      '2026-02-30T09:00:00Z',
      '2028-02-30T09:00:00Z',
      '2026-12-01T24:00:00Z',
      '2026-12-01T25:00:00Z',
      '2026-12-01T09:60:00Z',
      '2026-12-01T09:00:60Z',
      '2026-12-31T23:59:60Z',
      '2026-12-01T99:99:99Z',
    ]) {
      assert.equal(parseScheduleTime(text), undefined, text);
    }
  });

  it('rejects offsets beyond ±14:00 and offset minutes beyond 59', () => {
    for (const text of [
      '2026-12-01T09:00:00+15:00',
      '2026-12-01T09:00:00-15:00',
      '2026-12-01T09:00:00+14:01',
      '2026-12-01T09:00:00-14:30',
      '2026-12-01T09:00:00+24:00',
      '2026-12-01T09:00:00+99:99',
      '2026-12-01T09:00:00+02:60',
      '2026-12-01T09:00:00+0260',
    ]) {
      assert.equal(parseScheduleTime(text), undefined, text);
    }
  });

  it('rejects lowercase t and z (one spelling, as formatScheduleTime writes it)', () => {
    for (const text of [
      '2026-12-01t09:00:00Z',
      '2026-12-01T09:00:00z',
      '2026-12-01t09:00:00z',
      '2026-12-01t09:00:00+02:00',
    ]) {
      assert.equal(parseScheduleTime(text), undefined, text);
    }
  });
});

describe('formatScheduleTime', () => {
  it('round-trips canonical values, in their own offset', () => {
    for (const text of [
      '2026-12-01T09:00:00+02:00',
      '2026-12-01T09:00:00Z',
      '2026-12-01T09:00:00.250-05:30',
      '2026-12-01T09:00:00.001+05:45',
      '2026-12-01T09:00:00.999-09:30',
      '2026-01-31T23:30:00-05:00',
      '2026-01-01T05:00:00+14:00',
      '2026-12-31T23:59:59-12:00',
      '2028-02-29T12:00:00+05:30',
      '2000-02-29T00:00:00-03:30',
      '1969-12-31T23:59:59.999+01:00',
      '1900-01-01T00:00:00Z',
      '0099-03-01T00:00:00Z',
      '9999-12-31T23:59:59+14:00',
    ]) {
      assert.equal(formatScheduleTime(parseTime(text)), text);
    }
  });

  it('writes other accepted spellings canonically', () => {
    assert.equal(formatScheduleTime(parseTime('2026-12-01T09:00+0200')), '2026-12-01T09:00:00+02:00');
    assert.equal(formatScheduleTime(parseTime('2026-12-01T09:00:00.2Z')), '2026-12-01T09:00:00.200Z');
    assert.equal(formatScheduleTime(parseTime('2026-12-01T09:00:00.000Z')), '2026-12-01T09:00:00Z');
    assert.equal(formatScheduleTime(parseTime('2026-12-01T09:00:00-00:00')), '2026-12-01T09:00:00Z');
    assert.equal(formatScheduleTime(parseTime('2026-12-01T09:00:00+00:00')), '2026-12-01T09:00:00Z');
  });

  it('writes an instant in the offset it is paired with', () => {
    const instant = new Date('2026-02-01T04:30:00Z');
    assert.equal(formatScheduleTime({ instant, offsetMinutes: -300 }), '2026-01-31T23:30:00-05:00');
    assert.equal(formatScheduleTime({ instant, offsetMinutes: 0 }), '2026-02-01T04:30:00Z');
    assert.equal(formatScheduleTime({ instant, offsetMinutes: 330 }), '2026-02-01T10:00:00+05:30');
    assert.equal(formatScheduleTime({ instant, offsetMinutes: 840 }), '2026-02-01T18:30:00+14:00');
    assert.equal(formatScheduleTime({ instant, offsetMinutes: -720 }), '2026-01-31T16:30:00-12:00');
  });

  it('writes years outside 0000..9999 in the expanded form', () => {
    const late = { instant: new Date('+010000-01-01T00:00:00Z'), offsetMinutes: 0 };
    assert.equal(formatScheduleTime(late), '+010000-01-01T00:00:00Z');
    const early = { instant: new Date('-000001-06-01T00:00:00Z'), offsetMinutes: 60 };
    assert.equal(formatScheduleTime(early), '-000001-06-01T01:00:00+01:00');
  });

  it('round-trips random instants and offsets', () => {
    const random = makeRandom(1);
    for (let i = 0; i < 2000; i += 1) {
      const instant = new Date(Math.floor(random() * Date.UTC(2200, 0, 1)));
      const offsetMinutes = Math.floor(random() * 1681) - 840;
      const text = formatScheduleTime({ instant, offsetMinutes });
      assert.deepEqual(parseScheduleTime(text), { instant, offsetMinutes }, text);
    }
  });

  it('refuses an invalid date or an impossible offset', () => {
    assert.throws(() => formatScheduleTime({ instant: new Date(Number.NaN), offsetMinutes: 0 }), RangeError);
    const instant = new Date('2026-12-01T09:00:00Z');
    assert.throws(() => formatScheduleTime({ instant, offsetMinutes: 841 }), RangeError);
    assert.throws(() => formatScheduleTime({ instant, offsetMinutes: 0.5 }), RangeError);
  });
});

describe('frequencyViolation', () => {
  it('allows DAYS 7 and 14 only', () => {
    assert.equal(frequencyViolation(frequencyOf('DAYS', 7)), undefined);
    assert.equal(frequencyViolation(frequencyOf('DAYS', 14)), undefined);
    for (const value of [
      0,
      1,
      6,
      8,
      13,
      15,
      21,
      28,
      30,
      -7,
      7.5,
      14.000001,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      assert.equal(
        frequencyViolation(frequencyOf('DAYS', value)),
        'with unit DAYS the value must be 7 (weekly) or 14 (every two weeks)',
        String(value),
      );
    }
  });

  it('allows MONTHLY whole numbers from 1 to 31', () => {
    for (let value = 1; value <= 31; value += 1) {
      assert.equal(frequencyViolation(frequencyOf('MONTHLY', value)), undefined, String(value));
    }
    for (const value of [
      0,
      32,
      -1,
      1.5,
      30.9,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]) {
      assert.equal(
        frequencyViolation(frequencyOf('MONTHLY', value)),
        'with unit MONTHLY the value must be a whole number from 1 to 31 (the day of the month)',
        String(value),
      );
    }
  });

  it('names the allowed units for anything else (JSON bodies are not typed)', () => {
    for (const unit of ['WEEKS', 'days', 'monthly', 'YEARLY', '']) {
      assert.equal(
        frequencyViolation({ unit, value: 7 } as unknown as Frequency),
        'the unit must be DAYS or MONTHLY',
        unit,
      );
    }
  });
});

describe('alignToFrequency', () => {
  function align(text: string, unit: FrequencyUnit, value: number): string {
    return formatScheduleTime(alignToFrequency(parseTime(text), frequencyOf(unit, value)));
  }

  it('moves forward to day N later in the same month', () => {
    assert.equal(align('2026-03-10T09:00:00+02:00', 'MONTHLY', 15), '2026-03-15T09:00:00+02:00');
    assert.equal(align('2026-03-01T00:00:00Z', 'MONTHLY', 31), '2026-03-31T00:00:00Z');
  });

  it('moves to day N of the next month when day N has passed', () => {
    assert.equal(align('2026-03-10T09:00:00+02:00', 'MONTHLY', 5), '2026-04-05T09:00:00+02:00');
    assert.equal(align('2026-03-10T09:00:00+02:00', 'MONTHLY', 9), '2026-04-09T09:00:00+02:00');
    assert.equal(align('2026-03-31T09:00:00+02:00', 'MONTHLY', 1), '2026-04-01T09:00:00+02:00');
  });

  it('keeps the given day whatever its time of day (on or after the given date)', () => {
    assert.equal(align('2026-03-10T00:00:00+02:00', 'MONTHLY', 10), '2026-03-10T00:00:00+02:00');
    assert.equal(align('2026-03-10T08:00:00+02:00', 'MONTHLY', 10), '2026-03-10T08:00:00+02:00');
    assert.equal(align('2026-03-10T23:59:59.999+02:00', 'MONTHLY', 10), '2026-03-10T23:59:59.999+02:00');
  });

  it('keeps the time of day and the offset when it moves', () => {
    assert.equal(align('2026-03-10T23:45:30.125-09:30', 'MONTHLY', 20), '2026-03-20T23:45:30.125-09:30');
    assert.equal(align('2026-03-10T00:15:00+14:00', 'MONTHLY', 2), '2026-04-02T00:15:00+14:00');
  });

  it('clamps day N to the last day of shorter months', () => {
    assert.equal(align('2026-04-10T09:00:00Z', 'MONTHLY', 31), '2026-04-30T09:00:00Z');
    assert.equal(align('2026-04-30T09:00:00Z', 'MONTHLY', 31), '2026-04-30T09:00:00Z');
    assert.equal(align('2026-06-30T09:00:00Z', 'MONTHLY', 31), '2026-06-30T09:00:00Z');
    assert.equal(align('2026-11-15T09:00:00Z', 'MONTHLY', 31), '2026-11-30T09:00:00Z');
  });

  it('clamps 29, 30 and 31 to February 28 in common years and 29 in leap years', () => {
    for (const n of [29, 30, 31]) {
      assert.equal(align('2026-02-10T09:00:00Z', 'MONTHLY', n), '2026-02-28T09:00:00Z', String(n));
      assert.equal(align('2026-02-28T09:00:00Z', 'MONTHLY', n), '2026-02-28T09:00:00Z', String(n));
      assert.equal(align('2028-02-10T09:00:00Z', 'MONTHLY', n), '2028-02-29T09:00:00Z', String(n));
      assert.equal(align('2028-02-29T09:00:00Z', 'MONTHLY', n), '2028-02-29T09:00:00Z', String(n));
      assert.equal(align('2100-02-10T09:00:00Z', 'MONTHLY', n), '2100-02-28T09:00:00Z', String(n));
      assert.equal(align('2000-02-10T09:00:00Z', 'MONTHLY', n), '2000-02-29T09:00:00Z', String(n));
    }
    assert.equal(align('2028-02-29T09:00:00Z', 'MONTHLY', 28), '2028-03-28T09:00:00Z');
    assert.equal(align('2026-02-28T09:00:00Z', 'MONTHLY', 28), '2026-02-28T09:00:00Z');
  });

  it('rolls December over into January of the next year', () => {
    assert.equal(align('2026-12-20T09:00:00+01:00', 'MONTHLY', 5), '2027-01-05T09:00:00+01:00');
    assert.equal(align('2026-12-31T23:00:00-03:00', 'MONTHLY', 30), '2027-01-30T23:00:00-03:00');
    assert.equal(align('2026-12-31T23:00:00-03:00', 'MONTHLY', 31), '2026-12-31T23:00:00-03:00');
  });

  it('reads the day in the schedule offset, not in UTC', () => {
    // Feb 1 in UTC, Jan 31 where the schedule lives: already on the 31st.
    assert.equal(align('2026-01-31T23:30:00-05:00', 'MONTHLY', 31), '2026-01-31T23:30:00-05:00');
    assert.equal(align('2026-01-31T23:30:00-05:00', 'MONTHLY', 1), '2026-02-01T23:30:00-05:00');
    // Dec 31 in UTC, Jan 1 where the schedule lives.
    assert.equal(align('2026-01-01T05:00:00+14:00', 'MONTHLY', 1), '2026-01-01T05:00:00+14:00');
    assert.equal(align('2026-01-01T05:00:00+14:00', 'MONTHLY', 31), '2026-01-31T05:00:00+14:00');
  });

  it('leaves DAYS schedules as they are, as a new value', () => {
    for (const value of [7, 14]) {
      const time = parseTime('2026-03-10T09:00:00.500-05:30');
      const aligned = alignToFrequency(time, frequencyOf('DAYS', value));
      assert.deepEqual(aligned, time);
      assert.notEqual(aligned.instant, time.instant);
    }
  });

  it('finds the first day N on or after any time of 2027 (property)', () => {
    const random = makeRandom(2);
    for (let n = 1; n <= 31; n += 1) {
      for (let dayOfYear = 0; dayOfYear < 365; dayOfYear += 3) {
        const offsetMinutes = Math.floor(random() * 1681) - 840;
        const wallMs = Date.UTC(2027, 0, 1) + dayOfYear * DAY_MS + Math.floor(random() * DAY_MS);
        const time = { instant: new Date(wallMs - offsetMinutes * 60_000), offsetMinutes };
        const aligned = alignToFrequency(time, frequencyOf('MONTHLY', n));
        const before = readLocalClock(time);
        const after = readLocalClock(aligned);
        const context = `${formatScheduleTime(time)} N=${n}`;
        assert.equal(aligned.offsetMinutes, offsetMinutes, context);
        assert.equal(after.msOfDay, before.msOfDay, context);
        assert.ok(aligned.instant.getTime() >= time.instant.getTime(), context);
        assert.equal(after.day, Math.min(n, countDaysInMonth(after.year, after.month)), context);
        const sameMonth = after.year === before.year && after.month === before.month;
        if (sameMonth) assert.ok(after.day >= before.day, context);
        else {
          // Only when this month's day N (clamped) had already passed.
          assert.ok(Math.min(n, countDaysInMonth(before.year, before.month)) < before.day, context);
          assert.equal((after.year - before.year) * 12 + after.month - before.month, 1, context);
        }
      }
    }
  });

  it('refuses frequencies that are not allowed', () => {
    const time = parseTime('2026-03-10T09:00:00Z');
    assert.throws(() => alignToFrequency(time, frequencyOf('DAYS', 5)), RangeError);
    assert.throws(() => alignToFrequency(time, frequencyOf('MONTHLY', 32)), RangeError);
    assert.throws(() => alignToFrequency(time, frequencyOf('MONTHLY', 0)), RangeError);
  });
});

describe('nextRunTime, MONTHLY', () => {
  it('runs on the 31st or the last day of every month through a year', () => {
    assert.deepEqual(stepNext('2026-01-31T09:00:00+02:00', frequencyOf('MONTHLY', 31), 12), [
      '2026-02-28T09:00:00+02:00',
      '2026-03-31T09:00:00+02:00',
      '2026-04-30T09:00:00+02:00',
      '2026-05-31T09:00:00+02:00',
      '2026-06-30T09:00:00+02:00',
      '2026-07-31T09:00:00+02:00',
      '2026-08-31T09:00:00+02:00',
      '2026-09-30T09:00:00+02:00',
      '2026-10-31T09:00:00+02:00',
      '2026-11-30T09:00:00+02:00',
      '2026-12-31T09:00:00+02:00',
      '2027-01-31T09:00:00+02:00',
    ]);
  });

  it('runs on the 30th, on February 28 in a common year', () => {
    assert.deepEqual(stepNext('2026-01-30T18:30:00Z', frequencyOf('MONTHLY', 30), 12), [
      '2026-02-28T18:30:00Z',
      '2026-03-30T18:30:00Z',
      '2026-04-30T18:30:00Z',
      '2026-05-30T18:30:00Z',
      '2026-06-30T18:30:00Z',
      '2026-07-30T18:30:00Z',
      '2026-08-30T18:30:00Z',
      '2026-09-30T18:30:00Z',
      '2026-10-30T18:30:00Z',
      '2026-11-30T18:30:00Z',
      '2026-12-30T18:30:00Z',
      '2027-01-30T18:30:00Z',
    ]);
  });

  it('runs on the 29th, February 28 in 2027 and February 29 in 2028', () => {
    assert.deepEqual(stepNext('2027-01-29T07:00:00-04:00', frequencyOf('MONTHLY', 29), 3), [
      '2027-02-28T07:00:00-04:00',
      '2027-03-29T07:00:00-04:00',
      '2027-04-29T07:00:00-04:00',
    ]);
    assert.deepEqual(stepNext('2028-01-29T07:00:00-04:00', frequencyOf('MONTHLY', 29), 3), [
      '2028-02-29T07:00:00-04:00',
      '2028-03-29T07:00:00-04:00',
      '2028-04-29T07:00:00-04:00',
    ]);
  });

  it('runs on the first of every month through a year', () => {
    assert.deepEqual(stepNext('2026-12-01T00:00:00+01:00', frequencyOf('MONTHLY', 1), 13), [
      '2027-01-01T00:00:00+01:00',
      '2027-02-01T00:00:00+01:00',
      '2027-03-01T00:00:00+01:00',
      '2027-04-01T00:00:00+01:00',
      '2027-05-01T00:00:00+01:00',
      '2027-06-01T00:00:00+01:00',
      '2027-07-01T00:00:00+01:00',
      '2027-08-01T00:00:00+01:00',
      '2027-09-01T00:00:00+01:00',
      '2027-10-01T00:00:00+01:00',
      '2027-11-01T00:00:00+01:00',
      '2027-12-01T00:00:00+01:00',
      '2028-01-01T00:00:00+01:00',
    ]);
  });

  it('goes back to day N after a clamped month (never drifts to the 28th)', () => {
    assert.equal(
      formatScheduleTime(nextRunTime(parseTime('2026-02-28T09:00:00Z'), frequencyOf('MONTHLY', 31))),
      '2026-03-31T09:00:00Z',
    );
    assert.equal(
      formatScheduleTime(nextRunTime(parseTime('2028-02-29T09:00:00Z'), frequencyOf('MONTHLY', 30))),
      '2028-03-30T09:00:00Z',
    );
    assert.equal(
      formatScheduleTime(nextRunTime(parseTime('2026-04-30T09:00:00Z'), frequencyOf('MONTHLY', 31))),
      '2026-05-31T09:00:00Z',
    );
  });

  it('takes day N from the frequency, not from the stored date', () => {
    // An unaligned date (callers align with alignToFrequency first) still lands on day N.
    assert.equal(
      formatScheduleTime(nextRunTime(parseTime('2026-01-05T09:00:00Z'), frequencyOf('MONTHLY', 31))),
      '2026-02-28T09:00:00Z',
    );
    assert.equal(
      formatScheduleTime(nextRunTime(parseTime('2026-01-20T09:00:00Z'), frequencyOf('MONTHLY', 3))),
      '2026-02-03T09:00:00Z',
    );
  });

  it('follows the leap-year rule of centuries (2100 common, 2000 leap)', () => {
    assert.deepEqual(stepNext('2100-01-31T12:00:00Z', frequencyOf('MONTHLY', 31), 2), [
      '2100-02-28T12:00:00Z',
      '2100-03-31T12:00:00Z',
    ]);
    assert.deepEqual(stepNext('2000-01-31T12:00:00Z', frequencyOf('MONTHLY', 31), 2), [
      '2000-02-29T12:00:00Z',
      '2000-03-31T12:00:00Z',
    ]);
    assert.deepEqual(stepNext('2099-12-29T12:00:00Z', frequencyOf('MONTHLY', 29), 3), [
      '2100-01-29T12:00:00Z',
      '2100-02-28T12:00:00Z',
      '2100-03-29T12:00:00Z',
    ]);
  });

  it('counts days in the schedule offset where the UTC day differs (+14:00)', () => {
    const time = parseTime('2026-01-31T05:00:00+14:00');
    assert.equal(time.instant.getUTCDate(), 30);
    const next = nextRunTime(time, frequencyOf('MONTHLY', 31));
    assert.equal(formatScheduleTime(next), '2026-02-28T05:00:00+14:00');
    assert.equal(next.instant.toISOString(), '2026-02-27T15:00:00.000Z');
  });

  it('counts days in the schedule offset where the UTC day differs (-12:00)', () => {
    const time = parseTime('2026-01-31T20:00:00-12:00');
    assert.equal(time.instant.getUTCDate(), 1);
    const next = nextRunTime(time, frequencyOf('MONTHLY', 31));
    assert.equal(formatScheduleTime(next), '2026-02-28T20:00:00-12:00');
    assert.equal(next.instant.toISOString(), '2026-03-01T08:00:00.000Z');
    assert.equal(
      formatScheduleTime(nextRunTime(next, frequencyOf('MONTHLY', 31))),
      '2026-03-31T20:00:00-12:00',
    );
  });

  it('counts days in the schedule offset where the UTC day differs (+05:30)', () => {
    const time = parseTime('2026-03-31T02:00:00+05:30');
    assert.equal(time.instant.toISOString(), '2026-03-30T20:30:00.000Z');
    const next = nextRunTime(time, frequencyOf('MONTHLY', 31));
    assert.equal(formatScheduleTime(next), '2026-04-30T02:00:00+05:30');
    assert.equal(next.instant.toISOString(), '2026-04-29T20:30:00.000Z');
  });

  it('lands on min(N, days in month) for every N and every month of 2027–2029 (property)', () => {
    for (const offset of ['+14:00', '-12:00', '+05:30', 'Z']) {
      for (let n = 1; n <= 31; n += 1) {
        const frequency = frequencyOf('MONTHLY', n);
        let time = alignToFrequency(parseTime(`2026-12-01T09:15:00${offset}`), frequency);
        for (let i = 0; i < 36; i += 1) {
          time = nextRunTime(time, frequency);
          const local = readLocalClock(time);
          const year = 2027 + Math.floor(i / 12);
          const month = (i % 12) + 1;
          const context = `${offset} N=${n} ${formatScheduleTime(time)}`;
          assert.equal(local.year, year, context);
          assert.equal(local.month, month, context);
          assert.equal(local.day, Math.min(n, countDaysInMonth(year, month)), context);
          assert.equal(local.msOfDay, (9 * 60 + 15) * 60_000, context);
          assert.equal(time.offsetMinutes, parseTime(`2026-12-01T09:15:00${offset}`).offsetMinutes, context);
        }
      }
    }
  });

  it('lands on min(N, days in month) of the next month from any day (property)', () => {
    for (let n = 1; n <= 31; n += 1) {
      for (let month = 1; month <= 12; month += 1) {
        for (let day = 1; day <= countDaysInMonth(2028, month); day += 1) {
          const time = {
            instant: new Date(Date.UTC(2028, month - 1, day, 3) + 330 * 60_000),
            offsetMinutes: -330,
          };
          const local = readLocalClock(nextRunTime(time, frequencyOf('MONTHLY', n)));
          const year = month === 12 ? 2029 : 2028;
          const nextMonth = (month % 12) + 1;
          assert.deepEqual(
            [local.year, local.month, local.day],
            [year, nextMonth, Math.min(n, countDaysInMonth(year, nextMonth))],
            `2028-${month}-${day} N=${n}`,
          );
        }
      }
    }
  });

  it('refuses frequencies that are not allowed and invalid dates', () => {
    const time = parseTime('2026-03-10T09:00:00Z');
    assert.throws(() => nextRunTime(time, frequencyOf('MONTHLY', 1.5)), RangeError);
    assert.throws(() => nextRunTime(time, frequencyOf('DAYS', 1)), RangeError);
    assert.throws(
      () => nextRunTime({ instant: new Date('x'), offsetMinutes: 0 }, frequencyOf('DAYS', 7)),
      RangeError,
    );
  });
});

describe('nextRunTime, DAYS', () => {
  it('runs every 7 days across month and year ends', () => {
    assert.deepEqual(stepNext('2026-12-17T09:00:00+02:00', frequencyOf('DAYS', 7), 4), [
      '2026-12-24T09:00:00+02:00',
      '2026-12-31T09:00:00+02:00',
      '2027-01-07T09:00:00+02:00',
      '2027-01-14T09:00:00+02:00',
    ]);
  });

  it('runs every 14 days across month and year ends', () => {
    assert.deepEqual(stepNext('2026-12-10T09:00:00-05:30', frequencyOf('DAYS', 14), 4), [
      '2026-12-24T09:00:00-05:30',
      '2027-01-07T09:00:00-05:30',
      '2027-01-21T09:00:00-05:30',
      '2027-02-04T09:00:00-05:30',
    ]);
  });

  it('counts a leap day like any other', () => {
    assert.deepEqual(stepNext('2028-02-24T23:30:00-05:00', frequencyOf('DAYS', 7), 2), [
      '2028-03-02T23:30:00-05:00',
      '2028-03-09T23:30:00-05:00',
    ]);
    assert.deepEqual(stepNext('2028-02-20T06:00:00+14:00', frequencyOf('DAYS', 14), 1), [
      '2028-03-05T06:00:00+14:00',
    ]);
    assert.deepEqual(stepNext('2026-02-20T06:00:00+14:00', frequencyOf('DAYS', 14), 1), [
      '2026-03-06T06:00:00+14:00',
    ]);
  });

  it('keeps the local weekday where it differs from the UTC weekday', () => {
    // Saturday Jan 31 at 23:30 in New York is Sunday in UTC.
    const time = parseTime('2026-01-31T23:30:00-05:00');
    assert.equal(readLocalClock(time).weekday, 6);
    assert.equal(time.instant.getUTCDay(), 0);
    const next = nextRunTime(time, frequencyOf('DAYS', 7));
    assert.equal(formatScheduleTime(next), '2026-02-07T23:30:00-05:00');
    assert.equal(readLocalClock(next).weekday, 6);
  });

  it('keeps the weekday and local time over years of steps (property)', () => {
    for (const value of [7, 14]) {
      for (const text of [
        '2026-01-01T00:00:00+14:00',
        '2027-06-15T23:59:59.999-12:00',
        '2028-02-29T12:34:00+05:45',
      ]) {
        const start = parseTime(text);
        const startClock = readLocalClock(start);
        let time = start;
        for (let i = 1; i <= 300; i += 1) {
          time = nextRunTime(time, frequencyOf('DAYS', value));
          const clock = readLocalClock(time);
          assert.equal(clock.weekday, startClock.weekday, formatScheduleTime(time));
          assert.equal(clock.msOfDay, startClock.msOfDay, formatScheduleTime(time));
          assert.equal(time.offsetMinutes, start.offsetMinutes);
          assert.equal(time.instant.getTime() - start.instant.getTime(), i * value * DAY_MS);
        }
      }
    }
  });
});

describe('previousRunTime', () => {
  function previous(text: string, unit: FrequencyUnit, value: number): string {
    return formatScheduleTime(previousRunTime(parseTime(text), frequencyOf(unit, value)));
  }

  it('goes back to day N of the previous month, clamped', () => {
    assert.equal(previous('2026-03-31T09:00:00+02:00', 'MONTHLY', 31), '2026-02-28T09:00:00+02:00');
    assert.equal(previous('2028-03-31T09:00:00+02:00', 'MONTHLY', 31), '2028-02-29T09:00:00+02:00');
    assert.equal(previous('2026-05-31T09:00:00+02:00', 'MONTHLY', 31), '2026-04-30T09:00:00+02:00');
    assert.equal(previous('2026-02-28T09:00:00+02:00', 'MONTHLY', 31), '2026-01-31T09:00:00+02:00');
    assert.equal(previous('2026-03-15T09:00:00+02:00', 'MONTHLY', 15), '2026-02-15T09:00:00+02:00');
    assert.equal(previous('2100-03-29T09:00:00Z', 'MONTHLY', 29), '2100-02-28T09:00:00Z');
  });

  it('goes back over the year end', () => {
    assert.equal(previous('2027-01-31T09:00:00-03:00', 'MONTHLY', 31), '2026-12-31T09:00:00-03:00');
    assert.equal(previous('2027-01-01T00:00:00+14:00', 'MONTHLY', 1), '2026-12-01T00:00:00+14:00');
  });

  it('goes back 7 or 14 days', () => {
    assert.equal(previous('2027-01-07T09:00:00+02:00', 'DAYS', 7), '2026-12-31T09:00:00+02:00');
    assert.equal(previous('2027-01-07T09:00:00+02:00', 'DAYS', 14), '2026-12-24T09:00:00+02:00');
    assert.equal(previous('2028-03-02T23:30:00-05:00', 'DAYS', 7), '2028-02-24T23:30:00-05:00');
  });

  it('undoes nextRunTime for aligned times (property)', () => {
    for (let n = 1; n <= 31; n += 1) {
      const frequency = frequencyOf('MONTHLY', n);
      let time = alignToFrequency(parseTime('2026-12-01T21:00:00-09:30'), frequency);
      for (let i = 0; i < 40; i += 1) {
        const next = nextRunTime(time, frequency);
        assert.deepEqual(previousRunTime(next, frequency), time, `N=${n} ${formatScheduleTime(time)}`);
        time = next;
      }
    }
    for (const value of [7, 14]) {
      const time = parseTime('2028-02-29T12:00:00+05:30');
      assert.deepEqual(
        previousRunTime(nextRunTime(time, frequencyOf('DAYS', value)), frequencyOf('DAYS', value)),
        time,
      );
      assert.deepEqual(
        nextRunTime(previousRunTime(time, frequencyOf('DAYS', value)), frequencyOf('DAYS', value)),
        time,
      );
    }
  });
});

describe('firstRunAfter', () => {
  const weekly = frequencyOf('DAYS', 7);
  const monthly31 = frequencyOf('MONTHLY', 31);

  it('answers the schedule time itself while it is still ahead', () => {
    const time = parseTime('2026-12-01T09:00:00+02:00');
    for (const now of [new Date('2026-01-01T00:00:00Z'), new Date(time.instant.getTime() - 1)]) {
      for (const frequency of [weekly, monthly31]) {
        const run = firstRunAfter(time, frequency, now);
        assert.deepEqual(run, time);
        assert.notEqual(run.instant, time.instant);
      }
    }
  });

  it('answers the next run when now is exactly the schedule time (strictly after)', () => {
    const time = parseTime('2026-12-01T09:00:00+02:00');
    assert.equal(formatScheduleTime(firstRunAfter(time, weekly, time.instant)), '2026-12-08T09:00:00+02:00');
    assert.equal(
      formatScheduleTime(firstRunAfter(time, frequencyOf('MONTHLY', 1), time.instant)),
      '2027-01-01T09:00:00+02:00',
    );
  });

  it('skips missed runs: one catch-up, then the schedule goes on', () => {
    const time = parseTime('2026-01-01T09:00:00Z');
    assert.equal(
      formatScheduleTime(firstRunAfter(time, weekly, new Date('2026-01-10T00:00:00Z'))),
      '2026-01-15T09:00:00Z',
    );
    // Exactly on a later run: that run is not after now.
    assert.equal(
      formatScheduleTime(firstRunAfter(time, weekly, new Date('2026-01-22T09:00:00Z'))),
      '2026-01-29T09:00:00Z',
    );
    assert.equal(
      formatScheduleTime(firstRunAfter(time, frequencyOf('DAYS', 14), new Date('2026-01-22T09:00:00Z'))),
      '2026-01-29T09:00:00Z',
    );
  });

  it('steps MONTHLY schedules by nextRunTime, clamping on the way', () => {
    const time = parseTime('2026-01-31T09:00:00+02:00');
    assert.equal(
      formatScheduleTime(firstRunAfter(time, monthly31, new Date('2026-02-28T06:59:59.999Z'))),
      '2026-02-28T09:00:00+02:00',
    );
    assert.equal(
      formatScheduleTime(firstRunAfter(time, monthly31, new Date('2026-02-28T07:00:00Z'))),
      '2026-03-31T09:00:00+02:00',
    );
    assert.equal(
      formatScheduleTime(firstRunAfter(time, monthly31, new Date('2026-04-15T00:00:00Z'))),
      '2026-04-30T09:00:00+02:00',
    );
  });

  it('compares in the schedule offset when now is in another local month', () => {
    // Runs at 00:30 on the 1st at +14:00; now is Feb 28 in UTC but Mar 1 01:00 locally.
    const time = parseTime('2026-01-01T00:30:00+14:00');
    const now = new Date('2026-02-28T11:00:00Z');
    assert.equal(
      formatScheduleTime(firstRunAfter(time, frequencyOf('MONTHLY', 1), now)),
      '2026-04-01T00:30:00+14:00',
    );
    assert.equal(
      formatScheduleTime(firstRunAfter(time, frequencyOf('MONTHLY', 1), new Date('2026-02-28T10:29:59Z'))),
      '2026-03-01T00:30:00+14:00',
    );
    // At -12:00 now is Mar 1 in UTC but still Feb 28 locally, before that day's run.
    assert.equal(
      formatScheduleTime(
        firstRunAfter(parseTime('2026-01-31T21:00:00-12:00'), monthly31, new Date('2026-03-01T08:00:00Z')),
      ),
      '2026-02-28T21:00:00-12:00',
    );
  });

  it('jumps over years of DAYS runs', () => {
    const time = parseTime('2026-01-01T09:00:00+02:00');
    const now = new Date('2036-06-15T12:00:00Z');
    const run = firstRunAfter(time, weekly, now);
    assert.deepEqual(run, findRunByStepping(time, weekly, now));
    assert.equal(formatScheduleTime(run), '2036-06-19T09:00:00+02:00');
  });

  it('jumps over years of MONTHLY runs', () => {
    const time = parseTime('2026-01-31T09:00:00-05:00');
    const now = new Date('2036-02-10T00:00:00Z');
    const run = firstRunAfter(time, monthly31, now);
    assert.deepEqual(run, findRunByStepping(time, monthly31, now));
    assert.equal(formatScheduleTime(run), '2036-02-29T09:00:00-05:00');
  });

  it('stays fast over millennia (no stepping run by run)', () => {
    const time = parseTime('1970-01-01T09:00:00+01:00');
    const now = new Date('9000-06-15T12:00:00Z');
    const started = process.hrtime.bigint();
    const weeklyRun = firstRunAfter(time, weekly, now);
    const monthlyRun = firstRunAfter(time, frequencyOf('MONTHLY', 30), now);
    assert.ok(process.hrtime.bigint() - started < 50_000_000n, 'under 50 ms');
    assert.ok(weeklyRun.instant > now);
    assert.ok(weeklyRun.instant.getTime() - now.getTime() <= 7 * DAY_MS);
    assert.equal(readLocalClock(weeklyRun).weekday, readLocalClock(time).weekday);
    assert.equal(formatScheduleTime(monthlyRun), '9000-06-30T09:00:00+01:00');
  });

  it('agrees with stepping nextRunTime one run at a time (property)', () => {
    const random = makeRandom(3);
    const frequencies = [
      weekly,
      frequencyOf('DAYS', 14),
      ...[1, 15, 28, 29, 30, 31].map((n) => frequencyOf('MONTHLY', n)),
    ];
    for (let i = 0; i < 400; i += 1) {
      const frequency = frequencies[i % frequencies.length]!;
      const offsetMinutes = Math.floor(random() * 1681) - 840;
      const start = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 3 * 365 * DAY_MS));
      const time = alignToFrequency({ instant: start, offsetMinutes }, frequency);
      // Mostly after the schedule time, sometimes before; sometimes exactly on a run.
      let now = new Date(time.instant.getTime() + Math.floor((random() - 0.1) * 4 * 365 * DAY_MS));
      if (i % 5 === 0) now = findRunByStepping(time, frequency, now).instant;
      const context = `${formatScheduleTime(time)} ${frequency.unit} ${frequency.value} now ${now.toISOString()}`;
      assert.deepEqual(firstRunAfter(time, frequency, now), findRunByStepping(time, frequency, now), context);
    }
  });

  it('refuses an invalid now or frequency', () => {
    const time = parseTime('2026-01-01T09:00:00Z');
    assert.throws(() => firstRunAfter(time, weekly, new Date(Number.NaN)), RangeError);
    assert.throws(() => firstRunAfter(time, frequencyOf('DAYS', 30), new Date()), RangeError);
  });
});

describe('periodStartBefore', () => {
  const at = (text: string) => {
    const time = parseScheduleTime(text);
    assert.ok(time);
    return time;
  };
  it('goes one frequency back from any day: the same day of the previous month, clamped', () => {
    const cases: [string, number, string][] = [
      ['2026-11-21T12:00:00Z', 31, '2026-10-21T12:00:00Z'],
      ['2026-03-31T08:00:00+02:00', 1, '2026-02-28T08:00:00+02:00'],
      ['2028-03-31T08:00:00Z', 15, '2028-02-29T08:00:00Z'],
      ['2027-01-15T00:30:00-05:00', 28, '2026-12-15T00:30:00-05:00'],
    ];
    for (const [from, value, expected] of cases)
      assert.equal(formatScheduleTime(periodStartBefore(at(from), { unit: 'MONTHLY', value })), expected);
  });
  it('goes 7 or 14 days back for DAYS', () => {
    assert.equal(
      formatScheduleTime(periodStartBefore(at('2028-01-03T09:00:00Z'), { unit: 'DAYS', value: 14 })),
      '2027-12-20T09:00:00Z',
    );
  });
});
