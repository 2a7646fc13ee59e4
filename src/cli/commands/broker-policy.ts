// What the `nats` and `redis` commands share whichever broker they read: how a second consumer on
// one durable or group is refused, and how long checkpoints live.

/** Open runs' checkpoints and finished markers live this long after their last save. */
export const CHECKPOINT_TTL_MILLIS = 24 * 60 * 60 * 1000;

/** Why a second consumer on one durable or group is refused, and what to run instead. */
export function sharedConsumerMessage(
  other: string,
  shared: string,
  route: string,
  instance: string,
) {
  return [
    `another consumer is reading this stream now (${other}): instances sharing one ${shared} split every run between them, each exporting part of it.`,
    'To scale out, route the stream by run and share its partitions (docs/scaling-out.md):',
    `  agent-otel-bridge ${route}`,
    `  agent-otel-bridge ${instance}   # on each instance`,
    'To start anyway: --allow-shared-consumer',
  ].join('\n');
}
