// An instance behind a router puts a drain mark in effect only once it has read its partitions to
// their end after hearing it (docs/scaling-out.md, "Routers"). Reading paused by --max-ack-pending
// reads nothing, and what it holds is released only by that same clock: a paused instance puts the
// marks in effect as heard, so that it never waits on itself. On the real NATS JetStream and Redis
// of this machine, a router and an instance allowed far fewer messages held than the runs in
// flight need: it pauses again and again, and every run is still exported and counted once, with
// nothing left unacknowledged. A pause also checkpoints every open run that holds messages (their
// messages are then acknowledged): runs that each hold less than --checkpoint-every but together
// hold the bound wait for messages not read yet, and held reading for good before. (Events displaced while reading is paused can come late, counted
// as late: the bound on held messages is what holds then; docs/scaling-out.md says so.)
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishedAsBehestDoes, seeded } from '../helpers/behest-delivery.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { natsTopology, redisTopology } from '../helpers/partition-topology.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const TOPOLOGY = { partitions: 3, leaseMillis: 1500, ackWaitMillis: 1500 };
/** A seed for the drawn case; a failure names it (ROUTED_FLOW_SEED=<seed> runs it again). */
const FIRST_SEED = Number(process.env.ROUTED_FLOW_SEED ?? Date.now() % 1_000_000);

interface Bounds {
  readonly runs: number;
  readonly maxAckPending: number;
  readonly checkpointEvery: number | undefined;
  /** Draws the case and the displacement of its events; undefined for the fixed case. */
  readonly seed: number | undefined;
}

/**
 * Bounds far below what the runs in flight hold for their window and grace period (a run is about
 * 27 messages): runs, bound and checkpoint interval drawn from a seed (with open runs
 * checkpointed every few messages, or with the default of every 1 000 a run holds, where no run
 * ever holds enough and only a pause's own checkpoints acknowledge open runs' messages).
 */
function drawn(seed: number): Bounds {
  const random = seeded(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  return {
    runs: between(30, 100),
    maxAckPending: between(20, 120),
    checkpointEvery: random() < 0.5 ? undefined : between(5, 60),
    seed,
  };
}

const CASES: readonly Bounds[] = [
  // The stall found by hand: 80 runs, 40 held, no checkpoints but the pause's own.
  { runs: 80, maxAckPending: 40, checkpointEvery: undefined, seed: undefined },
  drawn(FIRST_SEED),
];
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

  it.each(CASES)(
    'pauses, resumes and exports every run ($runs runs, --max-ack-pending $maxAckPending, --checkpoint-every $checkpointEvery, seed $seed)',
    async (bounds) => {
      const RUNS = bounds.runs;
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
        String(bounds.maxAckPending),
        ...(bounds.checkpointEvery === undefined
          ? []
          : ['--checkpoint-every', String(bounds.checkpointEvery)]),
      ]);
      await topology.publish(publishedAsBehestDoes(lines, 8, bounds.seed ?? 0xf10));
      const runsExported = () =>
        new Set(
          receiver.spans.filter((s) => s.name.startsWith('invoke_agent')).map((s) => s.traceId),
        ).size;
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
    },
    90_000,
  );
});
