import { importWithFeature } from '../../optional-packages.js';
import type { Command } from '../command.js';
import type { Io } from '../command.js';
import { armGrace } from '../grace.js';

/** `route nats|redis`: republishes the runtime's single stream by partition until SIGINT/SIGTERM. */
export async function runRouter(
  io: Io,
  command: Extract<Command, { name: 'route' }>,
): Promise<number> {
  const say = (line: string) => {
    if (!command.common.quiet) io.stderr.write(`${line}\n`);
  };
  const options = { ...command.router, report: say };
  // Each broker's client is an optional package, loaded only for its router.
  const router =
    command.broker === 'nats'
      ? (
          await importWithFeature('nats', () => import('../../partitions/nats-router.js'))
        ).createNatsRouter(options)
      : (
          await importWithFeature('redis', () => import('../../partitions/redis-router.js'))
        ).createRedisRouter(options);
  const stop = () => {
    router.stop();
    // What it holds unacknowledged comes back to the next router, in order.
    armGrace(
      command.graceMillis,
      (line) => io.stderr.write(line),
      'messages unacknowledged (the next router routes them)',
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const target =
    command.broker === 'nats'
      ? `${options.source}.<0–${options.partitions - 1}>`
      : `${options.source}:<0–${options.partitions - 1}>`;
  say(`routing ${options.url} ${options.source} to ${target} (group ${options.group})`);
  await router.run();
  if (!command.common.quiet)
    io.stdout.write(`routed ${router.routed} events to ${options.partitions} partitions\n`);
  return 0;
}
