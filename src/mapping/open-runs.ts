// What an operator sees of the runs in progress: one entry per open run (`GET /runs`, `top`),
// and the gauges of open runs by agent and model, read from the same records.
import type { HrTime } from '@opentelemetry/api';
import { formatHrTime } from '../events/hr-time.js';
import type { RunRecord } from './run-state.js';

/** One run in progress, as `GET /runs` lists it. */
export interface OpenRun {
  readonly runId: string;
  readonly dialect: string;
  readonly agent?: string;
  readonly provider?: string;
  readonly model?: string;
  /** The run's start by its own clock (RFC 3339). */
  readonly startedAt: string;
  /** Seconds from its start (by its own clock) to now. */
  readonly ageSeconds: number;
  /** The iteration in progress or last started; 0 before the first. */
  readonly iteration: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars of its model calls priced so far (absent before the first priced call). */
  readonly costUsd?: number;
  /** The type of the latest event applied, and when it happened (RFC 3339). */
  readonly lastEvent: string;
  readonly lastEventAt: string;
  /** Tools executing now. */
  readonly toolsRunning: number;
  /** The partition the run belongs to, where the source is partitioned. */
  readonly partition?: number;
}

/** Open runs of one group (an agent and model): the gauges' data points. */
export interface OpenRunGroup {
  readonly agent: string | undefined;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  count: number;
  oldestAgeSeconds: number;
  inputTokens: number;
  outputTokens: number;
}

const secondsSince = (start: HrTime, nowMillis: number) =>
  Math.max(0, (nowMillis - (start[0] * 1000 + start[1] / 1e6)) / 1000);

export function toOpenRun(run: RunRecord, agent: string | undefined, nowMillis: number): OpenRun {
  return {
    runId: run.runId,
    dialect: run.dialect,
    ...(agent === undefined ? {} : { agent }),
    ...(run.provider === undefined ? {} : { provider: run.provider }),
    ...(run.model === undefined ? {} : { model: run.model }),
    startedAt: formatHrTime(run.start),
    ageSeconds: Math.round(secondsSince(run.start, nowMillis) * 1000) / 1000,
    iteration: Math.max(0, run.highestIteration),
    inputTokens: run.inputTokens ?? 0,
    outputTokens: run.outputTokens ?? 0,
    ...(run.costUsd === undefined ? {} : { costUsd: run.costUsd }),
    lastEvent: run.lastEvent,
    lastEventAt: formatHrTime(run.lastSeen),
    toolsRunning: run.tools?.size ?? 0,
  };
}

/** The open runs grouped by agent, provider and model, for the gauges. */
export function groupOpenRuns(runs: Iterable<RunRecord>, nowMillis: number): OpenRunGroup[] {
  const groups = new Map<string, OpenRunGroup>();
  for (const run of runs) {
    const key = `${run.agentName ?? ''}\0${run.provider ?? ''}\0${run.model ?? ''}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        agent: run.agentName,
        provider: run.provider,
        model: run.model,
        count: 0,
        oldestAgeSeconds: 0,
        inputTokens: 0,
        outputTokens: 0,
      };
      groups.set(key, group);
    }
    group.count += 1;
    group.oldestAgeSeconds = Math.max(group.oldestAgeSeconds, secondsSince(run.start, nowMillis));
    group.inputTokens += run.inputTokens ?? 0;
    group.outputTokens += run.outputTokens ?? 0;
  }
  return [...groups.values()];
}
