// Partitions across instances, on the real NATS JetStream and Redis of this machine: two routers
// republish the runtime's single stream by partition, three bridge instances share the
// partitions through leases held in the broker. Every run comes out as one complete trace, no span
// id with two contents, `agent.runs` equal to the runs; then an owner is SIGKILLed mid-stream and
// a fourth instance joins: the same, with the takeover within lease time + ack wait.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishedAsBehestDoes } from '../helpers/behest-delivery.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { natsTopology, redisTopology, waitForEverySpan } from '../helpers/partition-topology.js';
import { countedRuns, startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const PARTITIONS = 6;
const LEASE_MS = 1500;
const ACK_WAIT_MS = 1500;
// The default reorder window and grace period: two routers republish a run's events in batches
// side by side, displacing them by up to a batch.
const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '400',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '1000',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '5000',
};

function runsIn(lines: readonly string[]): number {
  const h = createHarness();
  h.feed(lines.join('\n'));
  const { completed, failed, cancelled } = h.sink.stats().runs;
  return completed + failed + cancelled;
}

const dir = mkdtempSync(join(tmpdir(), 'partitions-'));

function expectedOf(name: string, lines: readonly string[]): Set<string> {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return expectedFingerprints([file]);
}

const owns = (cli: RunningCli) => (cli.stderr().match(/owns partition/g) ?? []).length;

const TOPOLOGY = { partitions: PARTITIONS, leaseMillis: LEASE_MS, ackWaitMillis: ACK_WAIT_MS };

describe.each([
  ['NATS JetStream', () => natsTopology(TOPOLOGY)],
  ['Redis Streams', () => redisTopology(TOPOLOGY)],
] as const)('%s partitions', (_name, makeTopology) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('gives every run one correct trace across routers and instances, through a SIGKILL and a new instance', async () => {
    const topology = makeTopology();
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => topology.cleanup(),
      () => receiver.close(),
    );
    const env = { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const first = createDemoLines(300, Date.UTC(2025, 5, 1, 12));
    const second = createDemoLines(200, Date.UTC(2025, 5, 2, 12));
    const expectedFirst = expectedOf('first', first);
    const expectedSecond = expectedOf('second', second);
    // One deadline for every wait, inside the test's own limit: a wait that runs out says what it
    // waited for, and a lost run fails as soon as nothing is left to deliver it.
    const deadline = Date.now() + 225_000;
    const left = (most: number) => Math.max(1000, Math.min(most, deadline - Date.now()));
    await topology.publish(publishedAsBehestDoes(first, 8, 0x5eed));
    const processes: RunningCli[] = [];
    const roles: string[] = [];
    const start = (args: string[], instanceId?: string) => {
      roles.push(instanceId ?? `router ${roles.length + 1}`);
      const cli = startCli(args, {
        ...env,
        ...(instanceId === undefined
          ? {}
          : { OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instanceId}` }),
      });
      processes.push(cli);
      cleanups.push(() => cli.stop('SIGKILL'));
      return cli;
    };
    start(topology.router(1));
    start(topology.router(2));
    const instances = [1, 2, 3].map((n) => start(topology.instance(n), `instance-${n}`));
    // On a failure, what each process said is the first thing to read.
    const explain = async (wait: Promise<void>) =>
      wait.catch((error: unknown) => {
        console.log(processes.map((p, i) => `--- process ${i}\n${p.stderr()}`).join('\n'));
        throw error;
      });
    await explain(
      waitForEverySpan(topology, receiver.spans, expectedFirst, left(90_000), 'the first 300 runs'),
    );
    // Every run counted once over all instances, handovers included.
    const firstRuns = runsIn(first);
    await waitFor(() => totalCounted(receiver) === firstRuns, left(15_000), 'agent.runs = runs');
    expect(instances.filter((i) => owns(i) > 0).length).toBeGreaterThan(1);

    // Mid-stream: SIGKILL an owner, and a fourth instance joins.
    await topology.publish(publishedAsBehestDoes(second, 8, 0xbeef));
    await waitFor(() => receiver.spans.length > expectedFirst.size + 50, left(30_000), 'progress');
    const victimIndex = instances.findIndex((i) => owns(i) > 0);
    const victim = instances[victimIndex]!;
    const survivors = instances.filter((i) => i !== victim);
    // The partitions the victim holds when it dies, from what it said, in order.
    const held = new Set<number>();
    for (const [, change, p] of victim.stderr().matchAll(/(owns|handed|lost) partition (\d+)/g))
      if (change === 'owns') held.add(Number(p));
      else held.delete(Number(p));
    expect(held.size).toBeGreaterThan(0);
    const takes = (p: number) =>
      survivors.reduce(
        (t, s) => t + (s.stderr().match(new RegExp(`owns partition ${p} of`, 'g')) ?? []).length,
        0,
      );
    const takesBefore = new Map([...held].map((p) => [p, takes(p)]));
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    survivors.push(start(topology.instance(4), 'instance-4'));
    // Every partition the victim held, owned again: its lease and its membership expire (a lease
    // time), then a round of balancing, a process start (the new instance's) included.
    await waitFor(
      () => [...held].every((p) => takes(p) > takesBefore.get(p)!),
      left(LEASE_MS * 2 + 3000),
      `partitions ${[...held].join(', ')} of the killed instance owned again`,
    );
    const takeoverMillis = Date.now() - killedAt;
    await explain(
      waitForEverySpan(topology, receiver.spans, expectedSecond, left(90_000), 'the next 200 runs'),
    );
    console.log(
      `every partition of the killed instance (${[...held].join(', ')}) owned again after ${takeoverMillis} ms (lease ${LEASE_MS} ms)`,
    );

    // Nothing else, no span id with two contents.
    expect(new Set(receiver.spans.map(wireFingerprint))).toEqual(
      new Set([...expectedFirst, ...expectedSecond]),
    );
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    // Every run counted; a run the killed instance counted but could not acknowledge is counted
    // again by its next owner (the stated bound: at most what the killed instance counted).
    const allRuns = firstRuns + runsIn(second);
    await waitFor(() => totalCounted(receiver) >= allRuns, left(15_000), 'every run counted');
    const countedByVictim = countedRuns(
      receiver.metricsByInstance.get(`instance-${victimIndex + 1}`) ?? [],
    );
    expect(totalCounted(receiver) - allRuns).toBeLessThanOrEqual(countedByVictim);
    // The survivors say, in their own metrics, that they hold every partition between them.
    const ownedBy = (id: string) =>
      (receiver.metricsByInstance.get(id) ?? [])
        .filter((m) => m.name === 'agent_bridge.partitions.owned')
        .flatMap((m) => m.points)
        .reduce((t, p) => t + (p.value as number), 0);
    const survivorIds = [1, 2, 3, 4]
      .filter((n) => n !== victimIndex + 1)
      .map((n) => `instance-${n}`);
    await waitFor(
      () => survivorIds.reduce((t, id) => t + ownedBy(id), 0) === PARTITIONS,
      left(15_000),
      'every partition owned by a survivor',
    ).catch((error: unknown) => {
      console.log(
        survivorIds.map((id) => `${id}: ${ownedBy(id)}`).join(', '),
        [...receiver.metricsByInstance.keys()],
        (receiver.metricsByInstance.get(survivorIds[0]!) ?? []).map((m) => m.name),
      );
      throw error;
    });
    // Each process left ends on SIGTERM, gracefully (exit 0, not cut short by its grace time of
    // 10 s) and within a margin of it.
    for (const [i, cli] of processes.entries()) {
      if (cli === victim) continue;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stoppedAt = Date.now();
      const ended = await Promise.race([
        cli.stop('SIGTERM'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(
                  `${roles[i]} still running 15 s after SIGTERM; it said:\n${cli.stderr()}`,
                ),
              ),
            15_000,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      console.log(`${roles[i]} ended ${Date.now() - stoppedAt} ms after SIGTERM`);
      // Gracefully: not cut short by its grace time (exit 3).
      if (ended.code !== 0)
        throw new Error(`${roles[i]} exited ${ended.code} on SIGTERM; it said:\n${cli.stderr()}`);
    }
  }, 240_000);
});
