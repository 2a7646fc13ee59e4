// An instance behind a router puts a drain mark in effect only once it has read its partitions to
// their end after hearing it (docs/scaling-out.md, "Routers"). Reading paused by --max-ack-pending
// reads nothing, and what it holds is released only by that same clock: a paused instance puts the
// marks in effect as heard, so that it never waits on itself. On the real NATS JetStream and Redis
// of this machine, a router and an instance allowed far fewer messages held than the runs in
// flight need: it pauses again and again, and every run is still exported and counted once, with
// nothing left unacknowledged. (Events displaced while reading is paused can come late, counted
// as late: the bound on held messages is what holds then; docs/scaling-out.md says so.)
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishedAsBehestDoes } from '../helpers/behest-delivery.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { natsTopology, redisTopology } from '../helpers/partition-topology.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const TOPOLOGY = { partitions: 3, leaseMillis: 1500, ackWaitMillis: 1500 };
const RUNS = 30;
/** Far below what the runs in flight hold for their window and grace period. */
const MAX_ACK_PENDING = 100;
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '300',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '600',
};

describe.each([
  ['NATS JetStream', () => natsTopology(TOPOLOGY)],
  ['Redis Streams', () => redisTopology(TOPOLOGY)],
] as const)('%s behind a router, reading paused by --max-ack-pending', (_name, makeTopology) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('pauses, resumes and exports every run', async () => {
    const topology = makeTopology();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => topology.cleanup(),
      () => receiver.close(),
    );
    const lines = createDemoLines(RUNS, Date.UTC(2025, 5, 4, 12));
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const processes: RunningCli[] = [];
    const start = (args: string[]) => {
      const cli = startCli(args, env);
      processes.push(cli);
      cleanups.push(() => cli.stop('SIGKILL'));
      return cli;
    };
    start(topology.router(1));
    const instance = start([
      ...topology.instance(1),
      '--max-ack-pending',
      String(MAX_ACK_PENDING),
      // Open runs' messages are acknowledged once checkpointed: below the bound, or nothing moves.
      '--checkpoint-every',
      String(MAX_ACK_PENDING / 4),
    ]);
    await topology.publish(publishedAsBehestDoes(lines, 8, 0xf10));
    const runsExported = () =>
      new Set(receiver.spans.filter((s) => s.name.startsWith('invoke_agent')).map((s) => s.traceId))
        .size;
    const settled = async () => {
      const held = await topology.unacknowledged();
      return held.routers === 0 && held.partitions === 0;
    };
    await waitFor(
      async () => runsExported() === RUNS && totalCounted(receiver) === RUNS && (await settled()),
      60_000,
      `every run exported and counted, nothing unacknowledged`,
    ).catch(async (error: unknown) => {
      console.log(processes.map((p, i) => `--- process ${i}\n${p.stderr()}`).join('\n'));
      console.log(
        `runs exported ${runsExported()}, counted ${totalCounted(receiver)}, unacknowledged ${JSON.stringify(await topology.unacknowledged())}`,
      );
      throw error;
    });
    // It did pause: the bound was reached, not merely set.
    expect(instance.stderr()).toContain('pulling paused until runs finish');
  }, 90_000);
});
