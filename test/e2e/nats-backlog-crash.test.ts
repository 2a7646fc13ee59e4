// A NATS consumer killed while it holds part of a large backlog (3 000 runs, about 80 000
// events): the messages it held come back to the next consumer after the ack wait, behind newer
// ones. The next consumer collects them before anything newer and applies every run in stream
// order: every run is the one complete trace one uninterrupted consumer makes, no span id has two
// contents, and nothing is left unacknowledged.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import {
  deleteNatsStream,
  natsConsumerInfo,
  publishToNats,
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

const ACK_WAIT_MS = 4000;

describe('nats consumer killed with a large backlog', () => {
  it('gives every run of the backlog whole through a SIGKILL and the redelivery of what it held', async () => {
    const id = randomUUID().slice(0, 8);
    const stream = `BACKLOG_${id}`;
    const subject = `backlog.${id}`;
    const lines = createDemoLines(3000, Date.UTC(2025, 5, 3, 12));
    expect(lines.length).toBeGreaterThan(75_000);
    const file = join(mkdtempSync(join(tmpdir(), 'backlog-')), 'runs.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const expected = expectedFingerprints([file]);
    await publishToNats(stream, subject, lines, undefined, 500);
    const receiver = await startOtlpReceiver();
    const args = [
      ...natsConsumerArgs(stream, subject, 'bridge'),
      '--ack-wait-ms',
      String(ACK_WAIT_MS),
    ];
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
    const first = startCli(args, env);
    let second: ReturnType<typeof startCli> | undefined;
    try {
      // Killed while busy: a fifth of the spans out, most of the backlog still to read.
      await waitFor(
        () => receiver.spans.length > expected.size / 5,
        120_000,
        'a fifth of the spans',
      );
      await first.stop('SIGKILL');
      const held = (await natsConsumerInfo(stream, 'bridge')).numAckPending;
      console.log(`killed holding ${held} messages`);
      expect(held).toBeGreaterThan(0);
      second = startCli(args, env);
      await waitFor(
        () => {
          const seen = new Set(receiver.spans.map(wireFingerprint));
          return [...expected].every((f) => seen.has(f));
        },
        180_000,
        'every span of the backlog',
      ).catch((error: unknown) => {
        console.log(describeMissing(expected, receiver.spans), second?.stderr());
        throw error;
      });
      expect(divergentDuplicates(receiver.spans)).toEqual([]);
      await waitFor(
        async () => (await natsConsumerInfo(stream, 'bridge')).numAckPending === 0,
        60_000,
        'every message acknowledged',
      );
      expect((await second.stop('SIGTERM')).code).toBe(0);
    } finally {
      await first.stop('SIGKILL');
      await second?.stop('SIGKILL');
      await receiver.close();
      await deleteNatsStream(stream);
    }
  }, 420_000);
});
