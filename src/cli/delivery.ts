import type { Env } from '../sink-options.js';
import { envInt } from '../config.js';

/** How long an export is held through a collector outage before its data counts as undelivered. */
export const DEFAULT_EXPORT_HOLD_MILLIS = 60_000;

/** Exit code of a run whose data the collector did not take (after holding). */
export const EXIT_UNDELIVERED = 3;

/** How long each export is held through an outage (AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS). */
export function exportHoldMillis(env: Env): number {
  return envInt(env, 'AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS', 1) ?? DEFAULT_EXPORT_HOLD_MILLIS;
}
