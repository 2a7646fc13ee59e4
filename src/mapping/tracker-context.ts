import type { Context, Tracer } from '@opentelemetry/api';
import type { Instruments } from './metrics.js';
import type { Scrubber } from './scrub.js';

/** What the mapping needs, resolved once by the sink. */
export interface TrackerContext {
  readonly tracer: Tracer;
  readonly instruments: Instruments;
  readonly scrub: Scrubber;
  readonly agentName: string | undefined;
  /** Runs join this context's trace instead of starting their own; undefined: one trace per run. */
  readonly parentContext: Context | undefined;
  readonly captureContent: boolean;
  readonly maxContentBytes: number;
  readonly idleTimeoutMillis: number;
  readonly maxOpenRuns: number;
  /** How many finished run ids are remembered to recognise late events. */
  readonly finishedRunMemory: number;
  /** Wall-clock milliseconds; injectable for idle-timeout tests. */
  readonly now: () => number;
}
