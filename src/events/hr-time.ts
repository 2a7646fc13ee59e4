import type { HrTime } from '@opentelemetry/api';

/** Seconds and nanoseconds since the epoch, as OpenTelemetry keeps times. */
export type { HrTime };

/** 2^64 nanoseconds, in whole seconds: the last second OTLP can carry (2554-07-21T23:34:33Z). */
const MAX_EXPORTABLE_SECONDS = 18_446_744_073;
const FRACTION_SCALE = [1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1];

/**
 * Parses an RFC 3339 timestamp (0–9 fraction digits, `Z` or a numeric offset) into an
 * `HrTime` kept to the nanosecond. Returns `undefined` for anything else. Hand-written on the
 * character codes: it runs once per event.
 */
export function parseRfc3339(text: string): HrTime | undefined {
  const n = text.length;
  if (n < 20 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined;
  const t = text.charCodeAt(10);
  if (t !== 84 && t !== 116) return undefined; // T or t
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const day = daySeconds(text);
  const hour = digits2(text, 11);
  const minute = digits2(text, 14);
  const second = digits2(text, 17);
  if (
    day === undefined ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 60
  )
    return undefined;
  let i = 19;
  let nanos = 0;
  if (text.charCodeAt(i) === 46) {
    const start = ++i;
    let fraction = 0;
    while (i < n) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      fraction = fraction * 10 + c;
      i += 1;
    }
    const count = i - start;
    if (count < 1 || count > 9) return undefined;
    nanos = fraction * (FRACTION_SCALE[count] ?? 1);
  }
  let offset = 0;
  const zone = text.charCodeAt(i);
  if (zone === 90 || zone === 122) {
    if (i + 1 !== n) return undefined;
  } else if ((zone === 43 || zone === 45) && i + 6 === n && text.charCodeAt(i + 3) === 58) {
    const oh = digits2(text, i + 1);
    const om = digits2(text, i + 4);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return undefined;
    offset = (zone === 45 ? -1 : 1) * (oh * 3600 + om * 60);
  } else {
    return undefined;
  }
  const seconds = day + hour * 3600 + minute * 60 + second - offset;
  // OTLP times are unsigned 64-bit nanoseconds since 1970: before it, or past 2554-07-21, a time
  // cannot be exported (it would wrap around).
  return seconds < 0 || seconds >= MAX_EXPORTABLE_SECONDS ? undefined : [seconds, nanos];
}

function digits2(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a < 0 || a > 9 || b < 0 || b > 9 ? -1 : a * 10 + b;
}

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Epoch seconds of the `YYYY-MM-DD` that `text` begins with (its dashes checked by the caller),
 * in the proleptic Gregorian calendar, by integer arithmetic alone (days from the civil date, as
 * H. Hinnant derives them): no `Date`, no cache, and a small function for the compilers.
 */
function daySeconds(text: string): number | undefined {
  const y1 = digits2(text, 0);
  const y2 = digits2(text, 2);
  const month = digits2(text, 5);
  const day = digits2(text, 8);
  if (y1 < 0 || y2 < 0 || month < 1 || month > 12 || day < 1) return undefined;
  const year = y1 * 100 + y2;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > MONTH_DAYS[month - 1]! + (leap && month === 2 ? 1 : 0)) return undefined;
  // The year counted from March, so that a leap day ends it.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return (era * 146_097 + dayOfEra - 719_468) * 86_400;
}

/** Milliseconds since the epoch (possibly fractional) → `HrTime`. */
export function hrTimeFromMillis(millis: number): HrTime {
  const seconds = Math.floor(millis / 1000);
  const nanos = Math.round((millis - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** `a - b` in seconds. */
export function secondsBetween(a: HrTime, b: HrTime): number {
  return a[0] - b[0] + (a[1] - b[1]) / 1e9;
}

/** Negative when `a` is earlier than `b`, zero when equal, positive when later. */
export function compareHrTime(a: HrTime, b: HrTime): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/** The later of two times. */
export function maxHrTime(a: HrTime, b: HrTime): HrTime {
  return compareHrTime(a, b) >= 0 ? a : b;
}

/**
 * `time - millis`, exact to the nanosecond for whole-millisecond durations, never before `floor`
 * (a huge duration must not reach back before the run, or wrap below 1970).
 */
export function subtractMillis(time: HrTime, millis: number, floor: HrTime = [0, 0]): HrTime {
  if (!(millis >= 0)) return time;
  const totalNanos = time[1] - Math.round((millis % 1000) * 1e6);
  const seconds = time[0] - Math.floor(millis / 1000);
  const result: HrTime = totalNanos < 0 ? [seconds - 1, totalNanos + 1e9] : [seconds, totalNanos];
  return compareHrTime(result, floor) < 0 ? floor : result;
}

/** RFC 3339 with nine fraction digits, for display and round-trips. */
export function formatHrTime(time: HrTime): string {
  const iso = new Date(time[0] * 1000).toISOString();
  return `${iso.slice(0, 19)}.${String(time[1]).padStart(9, '0')}Z`;
}
