import type { DiagLogger, MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { ResolvedConfig } from '../config.js';
import type { AgentEvent } from '../events/agent-event.js';
import { createIdentifierGuard, MAX_IDENTIFIER_LENGTH } from '../events/identifiers.js';
import { truncateChars } from '../mapping/privacy/content.js';
import { eventTallyFor } from '../mapping/metrics/event-tally.js';
import type { EventTally } from '../mapping/metrics/event-tally.js';
import type { Scrubber } from '../mapping/privacy/scrub.js';
import { boundedInstruments, LabelBudget } from '../mapping/metrics/label-budget.js';
import { MetricAttributeSets } from '../mapping/metrics/metric-attribute-sets.js';
import { createLimitReporter } from '../mapping/metrics/limit-report.js';
import type { LimitHit } from '../mapping/metrics/limit-report.js';
import {
  createEventsCounter,
  createInstruments,
  createLimitsCounter,
} from '../mapping/metrics/instruments.js';
import { limitTallyFor } from '../mapping/metrics/limit-tally.js';
import { OpenRunGauges, openRunGaugesFor } from '../mapping/metrics/open-run-gauges.js';
import { ReorderBuffer } from '../mapping/order/reorder-buffer.js';
import { RunTracker } from '../mapping/run-tracker.js';
import { createScrubbers } from '../mapping/privacy/scrub.js';
import { rememberScrubbed } from '../mapping/privacy/remembered-scrub.js';
import { PACKAGE_NAME, PACKAGE_VERSION, SCHEMA_URL } from '../version.js';

/** A sink's mapping, made from its configuration: the run tracker and the reorder buffer before it. */
export interface SinkMapping {
  readonly tracker: RunTracker;
  readonly buffer: ReorderBuffer;
  readonly tally: EventTally;
  readonly limitHit: LimitHit;
  readonly scrub: Scrubber;
  /** Cuts over-long identifiers and names of an event (counted, said once). */
  readonly guardIdentifiers: (event: AgentEvent) => AgentEvent;
  /** Takes the tracker's open runs out of the open-run gauges (at shutdown). */
  readonly stopGauges: () => void;
}

/** Creates the instruments, the scrubber, the tracker and its reorder buffer of one sink. */
export function createSinkMapping(
  config: ResolvedConfig,
  tracerProvider: TracerProvider,
  meterProvider: MeterProvider,
  log: DiagLogger,
): SinkMapping {
  const meter = meterProvider.getMeter(PACKAGE_NAME, PACKAGE_VERSION, { schemaUrl: SCHEMA_URL });
  const created = createInstruments(meter);
  const tally = eventTallyFor(meterProvider, () => createEventsCounter(meter));
  const limitHit = createLimitReporter(
    limitTallyFor(meterProvider, () => createLimitsCounter(meter)),
    log,
  );
  const budget = new LabelBudget(config.maxMetricLabelValues, () =>
    limitHit(
      'metric_label_values',
      `more than ${config.maxMetricLabelValues} distinct provider, model or tool names: further ones are recorded as _OTHER in metrics`,
    ),
  );
  const instruments = boundedInstruments(created, budget);
  const scrubbers = createScrubbers(config.scrubPatterns, {
    personalData: config.scrubPersonalData,
  });
  const scrub = scrubbers.text;
  const guardIdentifiers = createIdentifierGuard(
    scrubbers,
    () =>
      limitHit(
        'identifier_length',
        `an identifier or name was longer than ${MAX_IDENTIFIER_LENGTH} characters and was cut`,
      ),
    () =>
      limitHit(
        'identifier_shape',
        "a name or identifier was not of a name's shape (or held a secret) and was exported as its digest",
      ),
  );
  const maxLength = config.maxAttributeLength;
  const scrubFreeText = rememberScrubbed(scrub);
  const tracker = new RunTracker({
    tracer: tracerProvider.getTracer(PACKAGE_NAME, PACKAGE_VERSION, { schemaUrl: SCHEMA_URL }),
    instruments,
    metricSets: new MetricAttributeSets(),
    scrub,
    freeText: (text) => {
      const scrubbed = scrubFreeText(text);
      if (scrubbed.length <= maxLength) return scrubbed;
      limitHit(
        'attribute_length',
        `a text attribute was longer than ${maxLength} characters and was cut`,
      );
      return truncateChars(scrubbed, maxLength);
    },
    exportErrorText: config.exportErrorText,
    agentName: config.agentName,
    parentContext: config.parentContext,
    captureContent: config.captureContent,
    latestGenAi: config.genAiConventions === 'latest',
    prices: config.prices,
    maxContentBytes: config.maxContentBytes,
    idleTimeoutMillis: config.idleTimeoutMillis,
    maxOpenRuns: config.maxOpenRuns,
    maxIterationsPerRun: config.maxIterationsPerRun,
    maxToolsPerRun: config.maxToolsPerRun,
    maxEventsPerSpan: config.maxEventsPerSpan,
    maxAttributesPerSpan: config.maxAttributesPerSpan,
    recentEventKeysPerRun: config.recentEventKeysPerRun,
    limitHit,
    finishedRunMemory: config.finishedRunMemory,
    now: config.now,
    onRunEnd: config.onRunEnd,
  });
  const buffer = new ReorderBuffer(tracker, {
    holdMillis: config.reorderWindowMillis,
    holdEvents: config.reorderWindowEvents,
    maxHeldEvents: config.maxHeldEvents,
    graceMillis: config.lateGraceMillis,
    graceByEvents: config.countWindowsInEvents,
    graceEvents: config.lateGraceEvents,
    maxOpenRuns: config.maxOpenRuns,
    seenPerRun: config.recentEventKeysPerRun,
    now: config.now,
    limitHit,
    onError: (event, error) =>
      log.error(`failed to map ${event.type} of run ${event.runId}`, error),
  });
  tracker.onAbandoned = (runId) => buffer.runAbandoned(runId);
  const gauges = openRunGaugesFor(
    meterProvider,
    () => new OpenRunGauges(meter, (attributes) => budget.bound(attributes) ?? attributes),
  );
  const stopGauges = gauges.add(() => tracker.openRunGroups());
  return { tracker, buffer, tally, limitHit, scrub, guardIdentifiers, stopGauges };
}
