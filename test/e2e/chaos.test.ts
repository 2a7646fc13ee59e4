// Random faults against the documented scale-out deployment (docs/scaling-out.md), on the real
// NATS JetStream and Redis of this machine: two routers, three instances, six partitions, runs
// published as behest does (displaced, duplicated), some with a sub-agent in their trace (its run
// on any partition), and a seeded schedule of faults among them:
// SIGKILL (a new instance in its place), SIGSTOP longer than the lease then SIGCONT, joins, leaves,
// a router killed and restarted, and busy processes (with `npm run chaos`, a constant one beside it
// all). After
// each schedule the invariants are checked:
// - every run is one complete, correct trace, and no span id carries two contents;
// - nothing is left unacknowledged, by the routers or on any partition;
// - `agent.runs`, input and output tokens and tool calls equal a single in-process run's, exceeding
//   it only by what instances that were killed, stalled or stepped down exported (the bound
//   docs/scaling-out.md states), and never falling short of it.
//
// CHAOS_SEEDS (per broker, default 1) and CHAOS_SEED (the first seed) choose the schedules;
// `npm run chaos -- --seeds N` runs many and writes their results to CHAOS_REPORT.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { toTraceId } from '../../src/mapping/ids.js';
import { partitionOf, runIdOf } from '../../src/partitions/partition-of.js';
import type { OtlpMetric, OtlpSpan } from '../helpers/otlp-protobuf.js';
import { publishedAsBehestDoes } from '../helpers/behest-delivery.js';
import { chaosSchedule, describeFault } from '../helpers/chaos-schedule.js';
import type { Fault } from '../helpers/chaos-schedule.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { withSubagents } from '../helpers/subagent-runs.js';
import { natsTopology, redisTopology } from '../helpers/partition-topology.js';
import type { Topology } from '../helpers/partition-topology.js';
import {
  describeMissing,
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

/** Signals a process that may have ended already (a stop's SIGCONT after the schedule's kill). */
function signal(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

const SEEDS = Number(process.env['CHAOS_SEEDS'] ?? 1);
const FIRST_SEED = Number(process.env['CHAOS_SEED'] ?? 20261125);
const REPORT = process.env['CHAOS_REPORT'];
// The constant busy process beside it all: `npm run chaos` sets it; in the suite, where other test
// files run side by side, the faults' own busy processes are contention enough.
const HOG = process.env['CHAOS_HOG'] === '1';
const BATCHES = 3;
const RUNS_PER_BATCH = 40;
/** Every this many runs with a tool, one spawns a sub-agent. */
const SUBAGENT_EVERY = 3;
const FAULTS = Number(process.env['CHAOS_FAULTS'] ?? 4);
const TOPOLOGY = { partitions: 6, leaseMillis: 1500, ackWaitMillis: 1500 };
// A crashed router's or instance's messages come back after the ack wait (1.5 s here), behind
// newer events of their runs: the reorder window is longer than that (docs/scaling-out.md).
// CHAOS_SPAN_QUEUE (scripts/chaos.mjs --span-queue): a span export queue that small, so that
// spans wait for room in it while the faults strike.
const SPAN_QUEUE = Number(process.env['CHAOS_SPAN_QUEUE'] ?? 0);
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '3000',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '5000',
  ...(SPAN_QUEUE > 0
    ? {
        OTEL_BSP_MAX_QUEUE_SIZE: String(SPAN_QUEUE),
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(Math.max(1, Math.floor(SPAN_QUEUE / 4))),
      }
    : {}),
};

/** What the schedule's runs make in one process: spans, and the metric totals to hold. */
interface Expected {
  readonly fingerprints: Set<string>;
  readonly totals: Totals;
  /** The partition of each run, by its trace id. */
  readonly partitionOfTrace: Map<string, number>;
}

interface Totals {
  runs: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

const dir = mkdtempSync(join(tmpdir(), 'chaos-'));

async function expectedOf(seed: number, batches: readonly string[][]): Promise<Expected> {
  const file = join(dir, `${seed}.ndjson`);
  writeFileSync(file, `${batches.flat().join('\n')}\n`);
  const h = createHarness();
  h.feed(batches.flat().join('\n'));
  const tokens = async (type: string) =>
    (await h.points('gen_ai.client.token.usage'))
      .filter((p) => p.attributes['gen_ai.token.type'] === type)
      .reduce((t, p) => t + (typeof p.value === 'number' ? p.value : (p.value.sum ?? 0)), 0);
  const partitionOfTrace = new Map<string, number>();
  for (const line of batches.flat()) {
    const runId = runIdOf(line);
    if (runId !== undefined)
      partitionOfTrace.set(toTraceId('behest', runId), partitionOf(runId, TOPOLOGY.partitions));
  }
  return {
    partitionOfTrace,
    fingerprints: expectedFingerprints([file]),
    totals: {
      runs: await h.sum('agent.runs'),
      inputTokens: await tokens('input'),
      outputTokens: await tokens('output'),
      toolCalls: await h.sum('agent.tool.calls'),
    },
  };
}

/** How many runs missing spans each partition has, e.g. `p3: 7 runs`. */
function missingPartitions(expected: Expected, spans: readonly OtlpSpan[]): string {
  const seen = new Set(spans.map(wireFingerprint));
  const traces = new Set(
    [...expected.fingerprints].filter((f) => !seen.has(f)).map((f) => f.split('|')[0]!),
  );
  const count = new Map<number, number>();
  for (const trace of traces) {
    const p = expected.partitionOfTrace.get(trace) ?? -1;
    count.set(p, (count.get(p) ?? 0) + 1);
  }
  return (
    [...count]
      .sort(([a], [b]) => a - b)
      .map(([p, n]) => `p${p}: ${n} runs`)
      .join(', ') || 'none'
  );
}

/** An instance's own counts (events by outcome, checkpoints, evictions) from its latest export. */
function ownCounts(metrics: readonly OtlpMetric[] | undefined): string {
  if (metrics === undefined) return '(no metrics)';
  const counts: string[] = [];
  for (const m of metrics)
    if (
      ['agent_bridge.events', 'agent_bridge.checkpoints', 'agent_bridge.runs.evicted'].includes(
        m.name,
      )
    )
      for (const p of m.points)
        if (typeof p.value === 'number' && p.value > 0)
          counts.push(`${m.name}${JSON.stringify(p.attributes)}=${p.value}`);
  return counts.join(' ');
}

/** The same totals from one process's latest (cumulative) metrics export. */
function totalsOf(metrics: readonly OtlpMetric[]): Totals {
  const sum = (name: string, match: (a: Record<string, unknown>) => boolean = () => true) =>
    metrics
      .filter((m) => m.name === name)
      .flatMap((m) => m.points)
      .filter((p) => match(p.attributes))
      .reduce((t, p) => t + (typeof p.value === 'number' ? p.value : p.value.sum), 0);
  return {
    runs: sum('agent.runs'),
    inputTokens: sum('gen_ai.client.token.usage', (a) => a['gen_ai.token.type'] === 'input'),
    outputTokens: sum('gen_ai.client.token.usage', (a) => a['gen_ai.token.type'] === 'output'),
    toolCalls: sum('agent.tool.calls'),
  };
}

const addTotals = (all: readonly Totals[]): Totals =>
  all.reduce(
    (t, x) => ({
      runs: t.runs + x.runs,
      inputTokens: t.inputTokens + x.inputTokens,
      outputTokens: t.outputTokens + x.outputTokens,
      toolCalls: t.toolCalls + x.toolCalls,
    }),
    { runs: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0 },
  );

/** A busy process: one core's worth of contention until killed. */
function busy(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runSchedule(seed: number, topology: Topology): Promise<string> {
  const cleanups: (() => Promise<unknown>)[] = [() => topology.cleanup()];
  try {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      // A parent and its sub-agent share a trace, and may be on different partitions.
      withSubagents(
        createDemoLines(RUNS_PER_BATCH, Date.UTC(2025, 6, 1 + b, 12) + seed * 1000),
        SUBAGENT_EVERY,
      ),
    );
    const expected = await expectedOf(seed, batches);
    const schedule = chaosSchedule(seed, {
      batches: BATCHES,
      faults: FAULTS,
      leaseMillis: TOPOLOGY.leaseMillis,
    });
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const processes: { name: string; cli: RunningCli }[] = [];
    const start = (args: string[], name: string) => {
      const cli = startCli(args, {
        ...env,
        OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${name}`,
      });
      processes.push({ name, cli });
      cleanups.push(async () => {
        signal(cli.pid, 'SIGCONT');
        await cli.stop('SIGKILL');
      });
      return cli;
    };
    let nextInstance = 1;
    let nextRouter = 1;
    const instances: { name: string; cli: RunningCli }[] = [];
    const routers: RunningCli[] = [];
    const startInstance = () => {
      const n = nextInstance++;
      instances.push({ name: `instance-${n}`, cli: start(topology.instance(n), `instance-${n}`) });
    };
    const startRouter = () => {
      const n = nextRouter++;
      routers.push(start(topology.router(n), `router-${n}`));
    };
    /** Instances killed, stalled or stepped down: what they exported bounds the excess. */
    const faulted = new Set<string>();
    const hogs: ChildProcess[] = [];
    cleanups.push(() => Promise.resolve(hogs.forEach((hog) => hog.kill('SIGKILL'))));
    if (HOG) hogs.push(busy());

    const apply = async (fault: Fault) => {
      const pickOf = <T>(list: T[], pick: number) => list[pick % list.length]!;
      switch (fault.kind) {
        case 'kill': {
          const victim = pickOf(instances, fault.pick);
          faulted.add(victim.name);
          instances.splice(instances.indexOf(victim), 1);
          await victim.cli.stop('SIGKILL');
          startInstance();
          return;
        }
        case 'stall': {
          const victim = pickOf(instances, fault.pick);
          faulted.add(victim.name);
          signal(victim.cli.pid, 'SIGSTOP');
          setTimeout(() => signal(victim.cli.pid, 'SIGCONT'), fault.millis);
          return;
        }
        case 'pause': {
          const all = [
            ...instances.map((i) => ({ name: i.name, cli: i.cli })),
            ...routers.map((cli) => ({ name: undefined, cli })),
          ];
          const victim = pickOf(all, fault.pick);
          // It may still be late to renew and step down: what it exported bounds the excess.
          if (victim.name !== undefined) faulted.add(victim.name);
          signal(victim.cli.pid, 'SIGSTOP');
          setTimeout(() => signal(victim.cli.pid, 'SIGCONT'), fault.millis);
          return;
        }
        case 'join':
          startInstance();
          return;
        case 'leave': {
          if (instances.length < 2) return;
          const leaving = pickOf(instances, fault.pick);
          instances.splice(instances.indexOf(leaving), 1);
          signal(leaving.cli.pid, 'SIGCONT');
          await leaving.cli.stop('SIGTERM');
          return;
        }
        case 'kill-router': {
          const victim = pickOf(routers, fault.pick);
          routers.splice(routers.indexOf(victim), 1);
          await victim.stop('SIGKILL');
          startRouter();
          return;
        }
        case 'hog': {
          const hog = busy();
          hogs.push(hog);
          setTimeout(() => hog.kill('SIGKILL'), fault.millis);
          return;
        }
      }
    };

    startRouter();
    startRouter();
    for (let i = 0; i < 3; i += 1) startInstance();
    const done: string[] = [];
    for (const step of schedule) {
      await sleep(step.afterMillis);
      if (step.publish !== undefined)
        await topology.publish(
          publishedAsBehestDoes(batches[step.publish]!, 8, seed + step.publish),
        );
      if (step.fault !== undefined) {
        done.push(describeFault(step.fault));
        await apply(step.fault);
      }
    }
    const story = `seed ${seed} (${topology.broker}): ${done.join(', ') || 'no faults'}`;

    // On a failure: which spans are missing, and what every process said.
    const explain = async (error: unknown) => {
      const held = await topology.unacknowledged().catch(() => undefined);
      console.log(
        [
          story,
          `unacknowledged by partition: ${held?.byPartition.join(', ') ?? 'unknown'}`,
          `partitions of the runs missing spans: ${missingPartitions(expected, receiver.spans)}`,
          describeMissing(expected.fingerprints, receiver.spans),
          ...processes.map(
            (p) =>
              `--- ${p.name} ${ownCounts(receiver.metricsByInstance.get(p.name))}\n${p.cli.stderr().slice(-4000)}`,
          ),
        ].join('\n'),
      );
      throw error;
    };
    await waitFor(
      () => {
        const seen = new Set(receiver.spans.map(wireFingerprint));
        return [...expected.fingerprints].every((f) => seen.has(f));
      },
      150_000,
      `every span of ${BATCHES * RUNS_PER_BATCH} runs (${story})`,
    ).catch(explain);
    let left = { routers: -1, partitions: -1, byPartition: [] as number[] };
    await waitFor(
      async () => {
        left = await topology.unacknowledged();
        return left.routers === 0 && left.partitions === 0;
      },
      60_000,
      'nothing left unacknowledged',
    ).catch((error: unknown) => {
      console.log(`left unacknowledged: ${JSON.stringify(left)}`);
      return explain(error);
    });
    // Every live process ends gracefully: its last metrics are exported.
    for (const { cli } of instances) {
      signal(cli.pid, 'SIGCONT');
      await cli.stop('SIGTERM');
    }

    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(expected.fingerprints);
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    // An instance that lost a partition (stepped down: a renewal failed or came too late, under
    // the busy processes) left its open runs to the next owner as a crashed one does.
    const steppedDown = processes.filter((p) =>
      /lost partition|over \(epoch \d+\) late/.test(p.cli.stderr()),
    );
    for (const { name } of steppedDown) faulted.add(name);
    const byInstance = [...receiver.metricsByInstance].filter(([id]) => id.startsWith('instance'));
    const total = addTotals(byInstance.map(([, m]) => totalsOf(m)));
    const bound = addTotals(
      byInstance.filter(([id]) => faulted.has(id)).map(([, m]) => totalsOf(m)),
    );
    const excess = {
      runs: total.runs - expected.totals.runs,
      inputTokens: total.inputTokens - expected.totals.inputTokens,
      outputTokens: total.outputTokens - expected.totals.outputTokens,
      toolCalls: total.toolCalls - expected.totals.toolCalls,
    };
    const resends = receiver.spans.length - expected.fingerprints.size;
    // Processes where spans waited for room in the span export queue (--span-queue).
    const waited = processes.filter((p) => /wait in the bridge for room/.test(p.cli.stderr()));
    const line = `${story}; ${steppedDown.length} instances stepped down — excess (bound) runs ${excess.runs} (${bound.runs}), input tokens ${excess.inputTokens} (${bound.inputTokens}), output tokens ${excess.outputTokens} (${bound.outputTokens}), tool calls ${excess.toolCalls} (${bound.toolCalls}); spans exported again ${resends}${SPAN_QUEUE > 0 ? `; spans waited for room in ${waited.length} of ${processes.length} processes` : ''}`;
    console.log(line);
    if (Object.values(excess).some((x) => x !== 0))
      console.log(
        [
          ...byInstance.map(([id, m]) => `${id}: ${JSON.stringify(totalsOf(m))}`),
          `expected: ${JSON.stringify(expected.totals)}`,
          ...processes.map((p) => `--- ${p.name}\n${p.cli.stderr().slice(-3000)}`),
        ].join('\n'),
      );
    for (const key of ['runs', 'inputTokens', 'outputTokens', 'toolCalls'] as const) {
      expect(excess[key], `${key} (${line})`).toBeGreaterThanOrEqual(0);
      expect(excess[key], `${key} (${line})`).toBeLessThanOrEqual(bound[key]);
    }
    return line;
  } finally {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  }
}

const seeds = Array.from({ length: SEEDS }, (_, i) => FIRST_SEED + i);

describe.each([
  ['NATS JetStream', () => natsTopology(TOPOLOGY)],
  ['Redis Streams', () => redisTopology(TOPOLOGY)],
] as const)('%s scale-out under random faults', (_name, makeTopology) => {
  it.each(seeds)(
    'holds every invariant through the schedule of seed %i',
    async (seed) => {
      const line = await runSchedule(seed, makeTopology());
      if (REPORT !== undefined) appendFileSync(REPORT, `ok ${line}\n`);
    },
    400_000,
  );
});
