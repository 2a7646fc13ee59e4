// Every long-running mode ends within `--grace-ms` of SIGTERM (README): one whose broker stopped
// answering (a hung server, a network that drops everything) says it ran out of time and exits 3,
// its unacknowledged messages left for redelivery — never a shutdown that waits on the broker for
// as long as the broker takes. Routers and instances, on a NATS and a Redis server of the test's
// own, paused with SIGSTOP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { PrivateBroker } from '../helpers/private-broker.js';
import { startNatsServer, startRedisServer } from '../helpers/private-broker.js';

const GRACE = 2000;

const cases: [
  string,
  (dir: string) => Promise<PrivateBroker>,
  (url: string) => string[],
  RegExp,
][] = [
  [
    'route nats',
    startNatsServer,
    (u) => ['route', 'nats', '--url', u, '--stream', 'S', '--subject', 's', '--partitions', '4'],
    /routing \(epoch/,
  ],
  [
    'nats --partitions',
    startNatsServer,
    (u) => ['nats', '--url', u, '--stream', 'P', '--subject', 's', '--partitions', '4'],
    /owns partition/,
  ],
  [
    'route redis',
    startRedisServer,
    (u) => ['route', 'redis', '--url', u, '--stream', 'k', '--partitions', '4'],
    /routing \(epoch/,
  ],
  [
    'redis --partitions',
    startRedisServer,
    (u) => ['redis', '--url', u, '--stream', 'k', '--partitions', '4'],
    /owns partition/,
  ],
];

describe('a broker that stops answering while a long-running mode runs', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.each(cases)(
    '%s: SIGTERM ends it within --grace-ms, saying so, exit 3',
    async (_name, startBroker, args, working) => {
      const dir = mkdtempSync(join(tmpdir(), 'grace-'));
      const broker = await startBroker(dir);
      const receiver = await startOtlpReceiver();
      cleanups.push(
        () => rmSync(dir, { recursive: true, force: true }),
        () => broker.stop(),
        () => broker.resume(),
        () => receiver.close(),
      );
      // The NATS stream an instance reads is created by the runtime's side, here.
      if (args(broker.url)[0] === 'nats') {
        const { connect } = await import('@nats-io/transport-node');
        const { jetstreamManager } = await import('@nats-io/jetstream');
        const nc = await connect({ servers: broker.url });
        await (await jetstreamManager(nc)).streams.add({ name: 'P', subjects: ['s.*'] });
        await nc.drain();
      }
      const cli = startCli([...args(broker.url), '--grace-ms', String(GRACE)], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      });
      cleanups.push(() => cli.stop('SIGKILL'));
      await cli.waitForStderr(working, 20_000);
      // Whatever it asks the broker from here on, on its way out too, goes unanswered.
      broker.pause();
      const stoppedAt = Date.now();
      const ended = await Promise.race([
        cli.stop('SIGTERM'),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), GRACE + 8000)),
      ]);
      if (ended === undefined)
        throw new Error(
          `still running ${GRACE + 8000} ms after SIGTERM; it said:\n${cli.stderr()}`,
        );
      const took = Date.now() - stoppedAt;
      expect(ended.stderr).toContain(`shutdown took longer than --grace-ms ${GRACE}`);
      expect(ended.code).toBe(3);
      expect(took).toBeGreaterThanOrEqual(GRACE - 100);
    },
    60_000,
  );
});
