import type { HrTime, TimeInput } from '@opentelemetry/api';
import { addHrTimes, hrTime, millisToHrTime } from '@opentelemetry/core';

/**
 * The clocks a span reads where a time is not given as an `HrTime`, by the trace SDK's rules:
 * read first when the span starts without an `HrTime`, or when such a time is first given. (The
 * SDK reads them at every start: a wall clock stepped between an `HrTime` start and the first
 * time given in milliseconds since the process started moves that time by the step.)
 */
export class SpanClock {
  /** `Date.now()` when the clock was made (a span's start, where none was given). */
  readonly startedAt = Date.now();
  private readonly performanceStart = performance.now();
  private readonly offset = this.startedAt - (this.performanceStart + performance.timeOrigin);

  /** `startTimeProvided`: whether the span was started with a time of its own. */
  constructor(private readonly startTimeProvided: boolean) {}

  /**
   * A time that is not an `HrTime`: milliseconds since the process started or since the epoch,
   * a date, or none (now: after `startTime` by the performance clock where the span's start was
   * read from the clocks, else by the wall clock).
   */
  timeOf(input: TimeInput | undefined, startTime: HrTime | undefined): HrTime {
    if (typeof input === 'number' && input <= performance.now()) return hrTime(input + this.offset);
    if (typeof input === 'number') return millisToHrTime(input);
    if (input instanceof Date) return millisToHrTime(input.getTime());
    if (this.startTimeProvided || startTime === undefined) return millisToHrTime(Date.now());
    return addHrTimes(startTime, millisToHrTime(performance.now() - this.performanceStart));
  }
}
