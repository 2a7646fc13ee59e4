// A consumer that stalls (a long GC pause, an overloaded machine: here SIGSTOP for 3 s, twice the
// ack wait) while JetStream sends it messages: the messages it holds for open runs outlive their
// ack wait and are redelivered, copies of events already applied, and those sent during the stall
// arrive late. Every span still arrives once, with one content; the copies are counted as late or
// duplicate, never applied twice.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { deleteNatsStream, NATS_URL, natsConsumerInfo } from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import {
  divergentDuplicates,
  expectedFingerprints,
  waitFor,
  wireFingerprint,
} from '../helpers/wire-spans.js';

const ACK_WAIT_MS = 1500;

describe('nats consumer stalled mid-pull', () => {
  it('loses no span and applies no redelivered copy twice', async () => {
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
      [
        'nats',
        '--stream',
        stream,
        '--subject',
        subject,
        '--durable',
        'bridge',
        '--ack-wait-ms',
        String(ACK_WAIT_MS),
      ],
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
      await new Promise((r) => setTimeout(r, 1000));
      process.kill(cli.pid!, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, 3000));
      process.kill(cli.pid!, 'SIGCONT');
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
      expect(missing).toEqual([]);
      expect(divergentDuplicates(receiver.spans)).toEqual([]);
      // The stall did happen: held messages outlived their ack wait and came back as copies.
      const counted = /late (\d+)\s+duplicate (\d+)/.exec(result.stdout);
      expect(Number(counted?.[1]) + Number(counted?.[2])).toBeGreaterThan(0);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
      await nc.drain();
      await deleteNatsStream(stream);
    }
  }, 120_000);
});
