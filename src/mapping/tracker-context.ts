import type { Context, Tracer } from '@opentelemetry/api';
import type { LimitHit } from './metrics/limit-report.js';
import type { Instruments } from './metrics/instruments.js';
import type { MetricAttributeSets } from './metrics/metric-attribute-sets.js';
import type { PriceTable } from '../pricing/price-table.js';
import type { Scrubber } from './privacy/scrub.js';

/** A run that ended, as `onRunEnd` reports it. */
export interface RunSummary {
  readonly runId: string;
  readonly traceId: string;
  readonly dialect: string;
  readonly outcome: 'completed' | 'failed' | 'cancelled' | 'abandoned';
  readonly iterations: number;
  readonly synthesized: boolean;
  /** How many spans the run produced (run, iterations, model calls, tools). */
  readonly spanCount: number;
  /** The ids of those spans (a run's own, apart from the other runs of its trace). */
  readonly spanIds: readonly string[];
}

/** What the mapping needs, resolved once by the sink. */
export interface TrackerContext {
  readonly tracer: Tracer;
  readonly instruments: Instruments;
  /** The metric attribute sets, each made once (see `MetricAttributeSets`). */
  readonly metricSets: MetricAttributeSets;
  /** Masks secrets in captured content (which `maxContentBytes` bounds). */
  readonly scrub: Scrubber;
  /** Masks secrets in a free text (error, description, annotation) and cuts it to `maxAttributeLength`. */
  readonly freeText: (text: string) => string;
  /** Export error texts (scrubbed); false: only their class. */
  readonly exportErrorText: boolean;
  readonly agentName: string | undefined;
  /** Runs join this context's trace instead of starting their own; undefined: one trace per run. */
  readonly parentContext: Context | undefined;
  readonly captureContent: boolean;
  /** Follow the GenAI conventions' current development rather than v1.41. */
  readonly latestGenAi?: boolean;
  /** Prices model calls; undefined: costs are off. */
  readonly prices?: PriceTable | undefined;
  readonly maxContentBytes: number;
  readonly idleTimeoutMillis: number;
  readonly maxOpenRuns: number;
  readonly maxIterationsPerRun: number;
  readonly maxToolsPerRun: number;
  /** Event keys remembered per run for duplicate detection; older ones are forgotten. */
  readonly recentEventKeysPerRun: number;
  /** Span events the bridge adds to one span. */
  readonly maxEventsPerSpan: number;
  /** Runtime-specific (annotation) attributes on one span. */
  readonly maxAttributesPerSpan: number;
  /** Counts a limit hit in `agent_bridge.limits.hit` and says so once per limit. */
  readonly limitHit: LimitHit;
  /** How many finished run ids are remembered to recognise late events. */
  readonly finishedRunMemory: number;
  /** Told about every run that ends (never allowed to throw into the tracker). */
  readonly onRunEnd: ((run: RunSummary) => void) | undefined;
  /** Wall-clock milliseconds; injectable for idle-timeout tests. */
  readonly now: () => number;
}
