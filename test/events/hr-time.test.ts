import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareHrTime,
  formatHrTime,
  hrTimeFromMillis,
  parseRfc3339,
  secondsBetween,
  subtractMillis,
} from '../../src/events/hr-time.js';

const EPOCH_2025_06_01_12 = Date.UTC(2025, 5, 1, 12) / 1000;

describe('parseRfc3339', () => {
  it.each([
    ['2025-06-01T12:00:02Z', [EPOCH_2025_06_01_12 + 2, 0]],
    ['2025-06-01T12:00:00.5Z', [EPOCH_2025_06_01_12, 500_000_000]],
    ['2025-06-01T12:00:00.500Z', [EPOCH_2025_06_01_12, 500_000_000]],
    ['2025-06-01T12:00:00.123456Z', [EPOCH_2025_06_01_12, 123_456_000]],
    ['2025-06-01T12:00:00.123456789Z', [EPOCH_2025_06_01_12, 123_456_789]],
    ['2025-06-01T12:00:00.000000001Z', [EPOCH_2025_06_01_12, 1]],
    ['2025-06-01T14:00:00.25+02:00', [EPOCH_2025_06_01_12, 250_000_000]],
    ['2025-06-01T11:30:00-00:30', [EPOCH_2025_06_01_12, 0]],
    ['2025-06-01t12:00:00z', [EPOCH_2025_06_01_12, 0]],
  ])('%s keeps every digit', (text, expected) => {
    expect(parseRfc3339(text)).toEqual(expected);
  });

  it.each([
    '2025-06-01 12:00:00Z',
    '2025-06-01T12:00:00',
    '2025-06-01T12:00:00.1234567890Z',
    '2025-13-01T12:00:00Z',
    '2025-02-30T12:00:00Z',
    '2025-06-01T24:00:00Z',
    '2025-06-01T12:00:00+24:00',
    '1717243200',
    '',
  ])('rejects %j', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it('takes times OTLP can carry only: from 1970 to 2554-07-21T23:34:32Z', () => {
    expect(parseRfc3339('2554-07-21T23:34:32.999999999Z')).toEqual([18_446_744_072, 999_999_999]);
    expect(parseRfc3339('2554-07-21T23:34:33Z')).toBeUndefined();
    expect(parseRfc3339('9999-12-31T23:59:59Z')).toBeUndefined();
    expect(parseRfc3339('1969-12-31T23:59:59Z')).toBeUndefined();
  });

  it('accepts the leap day of a leap year only', () => {
    expect(parseRfc3339('2024-02-29T00:00:00Z')).toBeDefined();
    expect(parseRfc3339('2025-02-29T00:00:00Z')).toBeUndefined();
  });
});

describe('time arithmetic', () => {
  it('measures nanosecond differences exactly', () => {
    const a = parseRfc3339('2025-06-01T12:00:00.000000001Z')!;
    const b = parseRfc3339('2025-06-01T12:00:01.000000000Z')!;
    expect(secondsBetween(b, a)).toBeCloseTo(0.999999999, 12);
    expect(compareHrTime(a, b)).toBeLessThan(0);
    expect(compareHrTime(b, a)).toBeGreaterThan(0);
    expect(compareHrTime(a, a)).toBe(0);
  });

  it('subtracts milliseconds across a second boundary', () => {
    const finish = parseRfc3339('2025-06-01T12:00:01.010000000Z')!;
    expect(formatHrTime(subtractMillis(finish, 42))).toBe('2025-06-01T12:00:00.968000000Z');
    expect(formatHrTime(subtractMillis(finish, 30_000))).toBe('2025-06-01T11:59:31.010000000Z');
  });

  it('converts epoch milliseconds', () => {
    expect(hrTimeFromMillis(1_717_243_200_123.5)).toEqual([1_717_243_200, 123_500_000]);
    expect(formatHrTime(hrTimeFromMillis(Date.UTC(2025, 5, 1, 12)))).toBe(
      '2025-06-01T12:00:00.000000000Z',
    );
  });
});

describe('parseRfc3339 against Date', () => {
  it('agrees with Date.parse on any millisecond timestamp, in UTC and with offsets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 86_400_000, max: 4_000_000_000_000 }),
        fc.integer({ min: -23 * 60, max: 23 * 60 }),
        (millis, offsetMinutes) => {
          const iso = new Date(millis).toISOString();
          expect(parseRfc3339(iso)).toEqual(hrTimeFromMillis(millis));
          const shifted = new Date(millis + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const withOffset = `${shifted}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          expect(parseRfc3339(withOffset)).toEqual(hrTimeFromMillis(millis));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses times before 1970, which OTLP cannot carry (they wrapped to year 2322)', () => {
    expect(parseRfc3339('1969-12-31T23:59:59.999Z')).toBeUndefined();
    expect(parseRfc3339('1970-01-01T00:30:00+01:00')).toBeUndefined();
    expect(parseRfc3339('1970-01-01T00:00:00Z')).toEqual([0, 0]);
  });

  it('reads every date of years 0000–9999 as the proleptic calendar does (years below 100 are not 1900s)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (year, month, day) => {
          const pad = (n: number, width: number) => String(n).padStart(width, '0');
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T00:00:00Z`;
          const reference = new Date(0);
          reference.setUTCFullYear(year, month - 1, day);
          const real =
            month >= 1 &&
            month <= 12 &&
            day >= 1 &&
            reference.getUTCFullYear() === year &&
            reference.getUTCMonth() === month - 1 &&
            reference.getUTCDate() === day;
          const seconds = reference.getTime() / 1000;
          const exportable = real && seconds >= 0 && seconds < 18_446_744_073;
          expect(parseRfc3339(text), text).toEqual(exportable ? [seconds, 0] : undefined);
        },
      ),
      { numRuns: 5000 },
    );
    // Read as 1970 before: the year 70 is long before OTLP's first second.
    expect(parseRfc3339('0070-01-01T00:00:00Z')).toBeUndefined();
  });

  it('never reaches back before the floor with a huge duration', () => {
    const end: [number, number] = [EPOCH_2025_06_01_12, 500];
    const floor: [number, number] = [EPOCH_2025_06_01_12 - 10, 0];
    expect(subtractMillis(end, 1e18, floor)).toEqual(floor);
    expect(subtractMillis(end, 1e18)).toEqual([0, 0]);
    expect(subtractMillis(end, Number.NaN, floor)).toEqual(end);
    expect(subtractMillis(end, 1500, floor)).toEqual([EPOCH_2025_06_01_12 - 2, 500_000_500]);
  });
});
