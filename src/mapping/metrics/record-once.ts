import type { RunRecord } from '../run-state.js';
import type { Instruments } from './instruments.js';

/**
 * Records a metric of an open run exactly once in this process. A run let go while open (its
 * partition moved away) and rebuilt here from its redelivered events replays the same events in
 * the same order, so its first `replayedWrites` writes are the ones already made: they are skipped.
 */
export function recordOnce(run: RunRecord, write: (instruments: Instruments) => void): void {
  run.metricWrites += 1;
  if (run.metricWrites <= run.replayedWrites) return;
  write(run.instruments);
}
