import type { DiagLogger } from '@opentelemetry/api';
import type { LimitTally } from './limit-tally.js';

/** Counts every hit of one of the bridge's limits in `agent_bridge.limits.hit` and says so once per limit. */
export type LimitHit = (limit: string, message: string) => void;

export function createLimitReporter(tally: LimitTally, log: DiagLogger): LimitHit {
  const reported = new Set<string>();
  return (limit, message) => {
    tally.add(limit);
    if (reported.has(limit)) return;
    reported.add(limit);
    log.warn(`${message} (reported once; every hit is counted in agent_bridge.limits.hit)`);
  };
}
