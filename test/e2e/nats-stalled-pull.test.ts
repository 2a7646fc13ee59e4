// A consumer that stalls (a long GC pause, an overloaded machine: here SIGSTOP) while JetStream
// sends it messages. Stalls shorter than the ack wait make it miss its pull's heartbeats and give
// the pull up while the server still sends into it; longer ones let the messages it holds outlive
// their ack wait, redelivered as copies of events already applied. The stalls are drawn from a
// seed (printed; NATS_STALL_SEED replays one): one to three, 0.3–3 s each, 0.3–1.5 s apart. Every
// span still arrives once, with one content; the copies are counted as late or duplicate, never
// applied twice.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { seeded } from '../helpers/behest-delivery.js';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import {
  deleteNatsStream,
  NATS_URL,
  natsConsumerInfo,
  natsConsumerArgs,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  describeMissing,
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const ACK_WAIT_MS = 1500;

const FIRST_SEED = Number(process.env.NATS_STALL_SEED ?? Date.now() % 1_000_000);
const seeds =
  process.env.NATS_STALL_SEED === undefined ? [FIRST_SEED, FIRST_SEED + 1] : [FIRST_SEED];

/** SIGSTOP → SIGCONT pauses, each after a gap: drawn from the seed. */
function stallsOf(seed: number): { afterMillis: number; millis: number }[] {
  const random = seeded(seed);
  return Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
    afterMillis: Math.round(300 + random() * 1200),
    millis: Math.round(300 + random() * 2700),
  }));
}

describe('nats consumer stalled mid-pull', () => {
  it.each(seeds)(
    'loses no span and applies no redelivered copy twice (stalls of seed %i)',
    async (seed) => {
      const stalls = stallsOf(seed);
      const story = `seed ${seed}: ${stalls.map((s) => `after ${s.afterMillis} ms stalled ${s.millis} ms`).join(', ')}`;
      console.log(story);
      const id = randomUUID().slice(0, 8);
      const stream = `STALL_${id}`;
      const subject = `stall.${id}`;
      const lines = createDemoLines(40, Date.UTC(2025, 5, 2, 12));
      const dir = mkdtempSync(join(tmpdir(), 'stall-'));
      const file = join(dir, 'runs.ndjson');
      writeFileSync(file, `${lines.join('\n')}\n`);
      const expected = expectedFingerprints([file]);
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [subject] });
      const receiver = await startOtlpReceiver();
      const cli = startCli(
        [...natsConsumerArgs(stream, subject, 'bridge'), '--ack-wait-ms', String(ACK_WAIT_MS)],
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
      );
      try {
        await cli.waitForStderr(/consuming/);
        const js = jetstream(nc);
        // Published steadily over about 3 s; the consumer is stopped for 3 s a second in.
        const publishing = (async () => {
          for (let i = 0; i < lines.length; i += 25) {
            await Promise.all(lines.slice(i, i + 25).map((line) => js.publish(subject, line)));
            await new Promise((r) => setTimeout(r, 3000 / (lines.length / 25)));
          }
        })();
        for (const stall of stalls) {
          await new Promise((r) => setTimeout(r, stall.afterMillis));
          process.kill(cli.pid!, 'SIGSTOP');
          await new Promise((r) => setTimeout(r, stall.millis));
          process.kill(cli.pid!, 'SIGCONT');
        }
        await publishing;
        await waitFor(
          async () => (await natsConsumerInfo(stream, 'bridge')).numAckPending === 0,
          60_000,
          'every message acknowledged',
        );
        const result = await cli.stop('SIGTERM');
        expect(result.code).toBe(0);
        const arrived = new Set(receiver.spans.map(wireFingerprint));
        const missing = [...expected].filter((s) => !arrived.has(s));
        if (missing.length > 0)
          console.log(`${story}\n${describeMissing(expected, receiver.spans)}\n${result.stderr}`);
        expect(missing).toEqual([]);
        expect(divergentDuplicates(receiver.spans)).toEqual([]);
      } finally {
        await cli.stop('SIGKILL');
        await receiver.close();
        await nc.drain();
        await deleteNatsStream(stream);
      }
    },
    120_000,
  );
});
