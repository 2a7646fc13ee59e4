import type { Counter, DiagLogger } from '@opentelemetry/api';
import * as S from '../semconv.js';

/** Counts every hit of one of the bridge's limits in `agent_bridge.limits.hit` and says so once per limit. */
export type LimitHit = (limit: string, message: string) => void;

export function createLimitReporter(counter: Counter, log: DiagLogger): LimitHit {
  const reported = new Set<string>();
  return (limit, message) => {
    counter.add(1, { [S.ATTR_AGENT_BRIDGE_LIMIT]: limit });
    if (reported.has(limit)) return;
    reported.add(limit);
    log.warn(`${message} (reported once; every hit is counted in agent_bridge.limits.hit)`);
  };
}
