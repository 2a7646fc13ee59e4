import type { HrTime } from '../../events/hr-time.js';
import { compareHrTime, hrTimeFromMillis } from '../../events/hr-time.js';

/** Arrival times for one stream from a millisecond wall clock, kept strictly increasing. */
export function createArrivalClock(nowMillis: () => number): () => HrTime {
  let last: HrTime = [0, 0];
  return () => {
    let time = hrTimeFromMillis(nowMillis());
    if (compareHrTime(time, last) <= 0) {
      time = last[1] + 1 >= 1e9 ? [last[0] + 1, 0] : [last[0], last[1] + 1];
    }
    last = time;
    return time;
  };
}

/** An arrival clock that remembers whether it was read since `taken()` last asked. */
export interface TrackedArrivalClock {
  readonly now: () => HrTime;
  /** Whether the clock was read since the last call (and forgets it). */
  taken(): boolean;
}

export function createTrackedArrivalClock(nowMillis: () => number): TrackedArrivalClock {
  const clock = createArrivalClock(nowMillis);
  let read = false;
  return {
    now: () => {
      read = true;
      return clock();
    },
    taken: () => {
      const was = read;
      read = false;
      return was;
    },
  };
}

/** The events of a decode that read the arrival clock: their times are the bridge's, not the runtime's. */
export function markArrivalTimed<E extends { readonly timeFromArrival?: true | undefined }>(
  events: readonly E[],
): E[] {
  return events.map((e) => ({ ...e, timeFromArrival: true }));
}
