import type { HrTime } from '@opentelemetry/api';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const FRACTION_SCALE = [1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1];

/**
 * Parses an RFC 3339 timestamp (0–9 fraction digits, `Z` or a numeric offset) into an
 * `HrTime` kept to the nanosecond. Returns `undefined` for anything else.
 */
export function parseRfc3339(text: string): HrTime | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(
    Number,
  ) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetSeconds = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11]);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    offsetSeconds = (m[9] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const fraction = m[7] ?? '';
  const nanos = fraction === '' ? 0 : Number(fraction) * (FRACTION_SCALE[fraction.length] ?? 1);
  const seconds = Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offsetSeconds;
  return [seconds, nanos];
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
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

/** `time - millis`, exact to the nanosecond for whole-millisecond durations. */
export function subtractMillis(time: HrTime, millis: number): HrTime {
  const totalNanos = time[1] - Math.round((millis % 1000) * 1e6);
  const seconds = time[0] - Math.floor(millis / 1000);
  return totalNanos < 0 ? [seconds - 1, totalNanos + 1e9] : [seconds, totalNanos];
}

/** RFC 3339 with nine fraction digits, for display and round-trips. */
export function formatHrTime(time: HrTime): string {
  const iso = new Date(time[0] * 1000).toISOString();
  return `${iso.slice(0, 19)}.${String(time[1]).padStart(9, '0')}Z`;
}
