import type { DeliveryTally } from '../../telemetry/export/delivery-tally.js';
import { UNREACHABLE_HOLD_MILLIS } from '../../telemetry/export/outage.js';
import type { Io } from '../command.js';
import { exportHoldMillis } from '../delivery.js';

/**
 * Says at once when nothing answers at the collector's address (the telemetry's TCP probe at
 * start, not the exporter's first failure after its own retries), and once at the start of an
 * outage, with how long exports are held.
 */
export function sayCollectorTrouble(io: Io, delivery: DeliveryTally, destination: string): void {
  const hold = exportHoldMillis(io.env);
  let said = false;
  delivery.onUnreachable = (problem) => {
    if (said) return;
    said = true;
    io.stderr.write(
      `agent-otel-bridge: ${problem}; holding exports up to ${Math.min(hold, UNREACHABLE_HOLD_MILLIS) / 1000} s in case it starts\n`,
    );
  };
  delivery.onOutage = (error) => {
    if (said) return;
    said = true;
    io.stderr.write(
      `agent-otel-bridge: export outage (${destination}): ${error?.message ?? 'the collector did not take an export'}; holding exports up to ${hold / 1000} s\n`,
    );
  };
}
