import type { AgentEvent } from '../events/agent-event.js';
import type { DialectName } from '../events/dialect-name.js';
import type { RunCheckpoint } from './run-checkpoint.js';

/** An open run's events as its checkpoints keep them, and where its last checkpoint stands. */
export interface RunLog {
  readonly dialect: DialectName;
  /** Its events so far: the last checkpoint's, compacted, then those taken since. */
  events: AgentEvent[];
  /** What its last saved checkpoint holds (undefined: none saved). */
  saved: AgentEvent[] | undefined;
  /** The metric writes its last saved checkpoint covers. */
  savedWrites: number;
  /** Metric writes known to be exported: what its next checkpoint says were made. */
  durableWrites: number;
  /** Writes made by a time: exported once a metric collection taken after it is. */
  madeBy: { readonly at: number; readonly writes: number } | undefined;
  partition: number | undefined;
  /** The save under way, if any. */
  saving: Promise<void> | undefined;
  ended: boolean;
}

/** The log of a run whose first event was just taken: nothing saved yet. */
export function newRunLog(dialect: DialectName, first: AgentEvent): RunLog {
  return {
    dialect,
    events: [first],
    saved: undefined,
    savedWrites: 0,
    durableWrites: 0,
    madeBy: undefined,
    partition: undefined,
    saving: undefined,
    ended: false,
  };
}

/** The log of a run restored from its checkpoint (`events`: the checkpoint's, as saved). */
export function restoredRunLog(
  checkpoint: RunCheckpoint,
  events: AgentEvent[],
  partition: number | undefined,
): RunLog {
  return {
    dialect: checkpoint.dialect,
    events: [...events],
    saved: events,
    savedWrites: checkpoint.metricWrites,
    durableWrites: checkpoint.metricWrites,
    madeBy: undefined,
    partition,
    saving: undefined,
    ended: false,
  };
}
