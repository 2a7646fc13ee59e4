// SIGTERM while the bridge is busy with a backlog: it exits 0 within its grace period, having
// exported and acknowledged what it applied; what it held is redelivered to the next instance and
// nothing is lost. Runs against the machine's Redis and NATS.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import {
  deleteNatsStream,
  deleteRedisKey,
  natsConsumerInfo,
  NATS_URL,
  publishToNats,
  publishToRedis,
  REDIS_URL,
  redisPending,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const GRACE_MS = 3000;

function backlog(): { lines: string[]; runIds: Set<string> } {
  const lines: string[] = [];
  for (let batch = 0; lines.length < 20_000; batch += 1)
    lines.push(...createDemoLines(60, Date.UTC(2025, 5, 1, 12) + batch * 600_000));
  const runIds = new Set(lines.map((l) => /"run_id":"([^"]+)"/.exec(l)![1]!));
  return { lines, runIds };
}

const id = randomUUID().slice(0, 8);
const brokers = [
  {
    name: 'NATS JetStream',
    publish: (lines: string[]) => publishToNats(`LOAD_${id}`, `load.${id}`, lines),
    unacknowledged: async (total: number) => {
      const info = await natsConsumerInfo(`LOAD_${id}`, 'bridge');
      return total - info.ackFloor;
    },
    args: [
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      `LOAD_${id}`,
      '--subject',
      `load.${id}`,
      '--durable',
      'bridge',
      '--ack-wait-ms',
      '2000',
    ],
    cleanup: () => deleteNatsStream(`LOAD_${id}`),
  },
  {
    name: 'Redis Streams',
    publish: (lines: string[]) => publishToRedis(`load:${id}`, lines),
    unacknowledged: () => redisPending(`load:${id}`, 'bridge'),
    args: [
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      `load:${id}`,
      '--group',
      'bridge',
      '--consumer',
      'bridge-1',
    ],
    cleanup: () => deleteRedisKey(`load:${id}`),
  },
];

describe.each(brokers)('SIGTERM under load, $name', (broker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('exits 0 within the grace period having flushed, and loses nothing', async () => {
    const { lines, runIds } = backlog();
    await broker.publish(lines);
    cleanups.push(broker.cleanup);
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    // A bound on held messages well under the backlog, so that the first instance is still busy
    // with it when it is stopped (with the default it could take the whole backlog at once).
    const args = [...broker.args, '--grace-ms', String(GRACE_MS), '--max-ack-pending', '5000'];
    const first = startCli(args, env);
    cleanups.push(() => first.stop('SIGKILL'));
    // Busy: runs are arriving at the receiver and most of the backlog is still to come.
    await waitFor(() => receiver.spans.length > 200, 20_000, 'the first runs exported');
    const signalled = Date.now();
    const stopped = await first.stop('SIGTERM');
    const took = Date.now() - signalled;
    expect(stopped.code).toBe(0);
    expect(took).toBeLessThan(GRACE_MS + 1000);
    expect(stopped.stdout).toMatch(
      /delivered \d+ runs; acknowledged \d+ messages, held \d+ unacknowledged for redelivery/,
    );
    const runsAfterFirst = new Set(
      receiver.spans
        .filter((s) => s.name.startsWith('invoke_agent'))
        .map((s) => s.attributes['agent.run.id']),
    );
    expect(runsAfterFirst.size).toBeLessThan(runIds.size);

    // The next instance gets the rest; every run arrives exactly as a finished run.
    const second = startCli(args, env);
    cleanups.push(() => second.stop('SIGKILL'));
    await waitFor(
      () =>
        new Set(
          receiver.spans
            .filter((s) => s.name.startsWith('invoke_agent'))
            .map((s) => s.attributes['agent.run.id']),
        ).size === runIds.size,
      60_000,
      `all ${runIds.size} runs at the receiver`,
    );
    await waitFor(
      async () => (await broker.unacknowledged(lines.length)) === 0,
      20_000,
      'all acked',
    );
    const outcomes = new Set(
      receiver.spans
        .filter((s) => s.name.startsWith('invoke_agent'))
        .map((s) => s.attributes['agent.run.outcome']),
    );
    expect(outcomes.has('abandoned')).toBe(false);
    expect((await second.stop('SIGTERM')).code).toBe(0);
  });
});
