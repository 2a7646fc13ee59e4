import { createNatsRouter } from '../../partitions/nats-router.js';
import { createRedisRouter } from '../../partitions/redis-router.js';
import type { Command } from '../command.js';
import type { Io } from '../command.js';

/** `route nats|redis`: republishes the runtime's single stream by partition until SIGINT/SIGTERM. */
export async function runRouter(
  io: Io,
  command: Extract<Command, { name: 'route' }>,
): Promise<number> {
  const say = (line: string) => {
    if (!command.common.quiet) io.stderr.write(`${line}\n`);
  };
  const options = { ...command.router, report: say };
  const router = command.broker === 'nats' ? createNatsRouter(options) : createRedisRouter(options);
  const stop = () => router.stop();
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
