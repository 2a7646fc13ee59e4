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
