// A NATS pull that fails (the server goes quiet for longer than the pull's heartbeats allow, here
// a server of the test's own stopped with SIGSTOP at generated moments for generated lengths,
// while the reader holds and acknowledges messages at generated delays). What the server sent
// into the failed pull and was never read comes back only after the ack wait, so the source holds
// the bridge's runs meanwhile: every message that comes back must arrive while a hold is on. A failed pull that lost nothing must not cost that wait:
// the source lets go of its holds once the server counts no message it did not hand over (the
// common case, seen under load as a pull whose heartbeats stopped while the server was slow), and
// keeps them only after saying that messages never arrived.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsSource } from '../../src/sources/nats-source.js';
import { natsConsumerInfo, publishToNats } from '../helpers/brokers.js';
import { startNatsServer } from '../helpers/private-broker.js';
import type { PrivateBroker } from '../helpers/private-broker.js';

const MESSAGES = 6_000;
const ACK_WAIT_MILLIS = 2_000;
/** Messages the reader holds unacknowledged at most (it pulls only below this). */
const HOLDING = 300;
/**
 * What a hold of the source lasts at most: the retry's wait (at most 5 s), the failed pull's
 * expiry, the ack wait and the margins.
 */
const HOLD_AT_MOST_MILLIS = 5_000 + 1_500 + ACK_WAIT_MILLIS + 250 + 1_000;

interface Hold {
  readonly start: number;
  readonly until: number;
  releasedAt?: number;
}

interface Schedule {
  /** Pauses of the server: after how long since the previous resume (or the start), how long. */
  readonly stops: readonly { readonly after: number; readonly length: number }[];
  /** Acknowledgement delays (ms), used in turn. */
  readonly ackDelays: readonly number[];
}

const schedules = fc.record({
  stops: fc.array(
    fc.record({
      after: fc.integer({ min: 100, max: 1_500 }),
      length: fc.integer({ min: 1_600, max: 2_600 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  ackDelays: fc.array(fc.integer({ min: 0, max: 250 }), { minLength: 1, maxLength: 50 }),
});

describe('NATS JetStream source: a failed pull', () => {
  let broker: PrivateBroker;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aob-failed-pull-'));
    broker = await startNatsServer(dir);
  });
  afterAll(async () => {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Reads the whole stream through the stops of `schedule`; resolves with what it saw. */
  async function readThrough(schedule: Schedule, n: number) {
    const stream = `AOB_FP_${n}`;
    const subject = `fp.${n}`;
    const pad = ' '.repeat(120);
    const lines = Array.from({ length: MESSAGES }, (_, i) => `{"seq":${i + 1}}${pad}`);
    await publishToNats(stream, subject, lines, broker.url, 500);
    const reports: { at: number; message: string }[] = [];
    const source = createNatsSource({
      url: broker.url,
      stream,
      subject,
      durable: 'reader',
      ackWaitMillis: ACK_WAIT_MILLIS,
      maxAckPending: 100_000,
      batchSize: 64,
      report: (message) => reports.push({ at: Date.now(), message }),
    });
    await source.open();
    const arrivals: { seq: number; at: number }[] = [];
    const holds: Hold[] = [];
    let holding = 0;
    let acks = 0;
    const running = source.run(
      (text, delivery) => {
        arrivals.push({ seq: (JSON.parse(text) as { seq: number }).seq, at: Date.now() });
        holding += 1;
        const delay = schedule.ackDelays[acks++ % schedule.ackDelays.length]!;
        setTimeout(() => {
          holding -= 1;
          delivery.ack();
        }, delay);
      },
      () => holding < HOLDING,
      undefined,
      (millis) => {
        const hold: Hold = { start: Date.now(), until: Date.now() + millis };
        holds.push(hold);
        return () => (hold.releasedAt ??= Date.now());
      },
    );
    for (const stop of schedule.stops) {
      await new Promise((r) => setTimeout(r, stop.after));
      broker.pause();
      await new Promise((r) => setTimeout(r, stop.length));
      broker.resume();
    }
    const seen = new Set<number>();
    const until = Date.now() + 60_000;
    for (;;) {
      for (const { seq } of arrivals) seen.add(seq);
      if (seen.size === MESSAGES && holding === 0) {
        const info = await natsConsumerInfo(stream, 'reader', broker.url);
        if (info.numAckPending === 0 && info.ackFloor === MESSAGES) break;
      }
      if (Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    source.stop();
    await running;
    await source.close();
    return { arrivals, holds, reports, seen };
  }

  it('holds while lost messages come back, and lets go at once when none were lost', async () => {
    let n = 0;
    let lettingGo = 0;
    await fc.assert(
      fc.asyncProperty(schedules, async (schedule) => {
        n += 1;
        const { arrivals, holds, reports, seen } = await readThrough(schedule, n);
        expect(seen.size).toBe(MESSAGES);
        // A stop longer than the pull's heartbeats allow fails the pull under way.
        expect(holds.length).toBeGreaterThan(0);
        const onAt = (at: number) =>
          holds.some((h) => h.start <= at && at < Math.min(h.until, h.releasedAt ?? Infinity));
        const lostSaid = reports.filter((r) => r.message.includes('never arrived'));
        // The server redelivers what it counts as lost ahead of anything newer: the next that
        // many messages after the source said so are the lost ones, and arrive held.
        for (const said of lostSaid) {
          const count = Number(/^(\d+) message/.exec(said.message)![1]);
          const back = arrivals.filter((a) => a.at >= said.at).slice(0, count);
          expect(back).toHaveLength(count);
          for (const { seq, at } of back)
            expect({ seq, at, held: onAt(at) }).toEqual({ seq, at, held: true });
        }
        for (const hold of holds) {
          expect(hold.until - hold.start).toBeLessThanOrEqual(HOLD_AT_MOST_MILLIS);
          if (hold.releasedAt === undefined || hold.releasedAt >= hold.until) {
            // Kept to its end: the source said that messages never arrived, or it failed again
            // before it knew (a stop while it asked), and held again.
            const within = (at: number) => at >= hold.start && at < hold.until;
            const lostOrAgain =
              lostSaid.some((r) => within(r.at)) ||
              holds.some((other) => other !== hold && within(other.start));
            expect({ hold, lostOrAgain }).toEqual({ hold, lostOrAgain: true });
          } else {
            lettingGo += 1;
            // Let go of before the ack wait could have brought anything back.
            expect(hold.releasedAt - hold.start).toBeLessThan(ACK_WAIT_MILLIS);
          }
        }
      }),
      { numRuns: 4, endOnFailure: true },
    );
    // Across the schedules, some failed pull lost nothing and was let go of early.
    expect(lettingGo).toBeGreaterThan(0);
  }, 240_000);
});
