// A NATS pull that fails: the server goes quiet for longer than the pull's heartbeats allow
// (here a server of the test's own stopped with SIGSTOP, or its way back to the reader stalled, at
// generated moments for generated lengths, while the reader holds and acknowledges messages at
// generated delays). What the server sent into the failed pull and was never read comes back only
// after the ack wait, so the source holds the bridge's runs meanwhile: every message that comes
// back must arrive while a hold is on. A failed pull that lost nothing must not cost that wait:
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
import { startStallingProxy } from '../helpers/stalling-proxy.js';
import type { StallingProxy } from '../helpers/stalling-proxy.js';

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
  /**
   * Stops: after how long since the previous one ended (or the start), how long, and where: the
   * server stopped, or its way back to the reader stalled (what it sends meanwhile comes later).
   */
  readonly stops: readonly {
    readonly after: number;
    readonly length: number;
    readonly where: 'server' | 'path';
  }[];
  /** Acknowledgement delays (ms), used in turn. */
  readonly ackDelays: readonly number[];
}

const schedules = fc.record({
  stops: fc.array(
    fc.record({
      after: fc.integer({ min: 100, max: 1_500 }),
      length: fc.integer({ min: 1_600, max: 2_600 }),
      where: fc.constantFrom('server' as const, 'path' as const),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  ackDelays: fc.array(fc.integer({ min: 0, max: 250 }), { minLength: 1, maxLength: 50 }),
});

describe('NATS JetStream source: a failed pull', () => {
  let broker: PrivateBroker;
  let proxy: StallingProxy;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aob-failed-pull-'));
    broker = await startNatsServer(dir);
    proxy = await startStallingProxy(Number(new URL(broker.url).port));
  });
  afterAll(async () => {
    await proxy.close();
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
    // When the source says that messages never arrived: the highest sequence the server had sent
    // (it sends nothing new until they are back, so what it sends below that is what was lost).
    const lostSaid: { at: number; sentThrough: Promise<number> }[] = [];
    const source = createNatsSource({
      url: `nats://127.0.0.1:${proxy.port}`,
      stream,
      subject,
      durable: 'reader',
      ackWaitMillis: ACK_WAIT_MILLIS,
      maxAckPending: 100_000,
      batchSize: 64,
      report: (message) => {
        reports.push({ at: Date.now(), message });
        if (message.includes('never arrived'))
          lostSaid.push({
            at: Date.now(),
            sentThrough: natsConsumerInfo(stream, 'reader', broker.url).then((i) => i.delivered),
          });
      },
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
      if (stop.where === 'server') broker.pause();
      else proxy.stall();
      await new Promise((r) => setTimeout(r, stop.length));
      if (stop.where === 'server') broker.resume();
      else proxy.resume();
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
    const stoppingAt = Date.now();
    source.stop();
    await running;
    const stoppedAt = Date.now();
    await source.close();
    const lost = await Promise.all(
      lostSaid.map(async (said) => ({ at: said.at, sentThrough: await said.sentThrough })),
    );
    return { arrivals, holds, reports, seen, lost, stoppingAt, stoppedAt };
  }

  it('holds while lost messages come back, and lets go at once when none were lost', async () => {
    let n = 0;
    let lettingGo = 0;
    let redelivered = 0;
    let failed = 0;
    let unfailed = 0;
    await fc.assert(
      fc.asyncProperty(schedules, async (schedule) => {
        // At least three schedules with a failed pull, more until both outcomes were met (a loss
        // depends on where in the server's work the stop falls; on a loaded machine most stops
        // lose messages, so up to twenty are drawn).
        if (failed >= 3 && lettingGo > 0 && redelivered > 0) return;
        n += 1;
        const read = await readThrough(schedule, n);
        const { arrivals, holds, reports, seen, lost, stoppingAt, stoppedAt } = read;
        expect(seen.size).toBe(MESSAGES);
        // A stop longer than the pull's heartbeats allow fails the pull under way, once the
        // client's heartbeat check runs within it: on a loaded machine a stop near the shortest
        // can end first, and such a schedule has no failed pull to check (counted, below).
        if (holds.length === 0) {
          unfailed += 1;
          return;
        }
        failed += 1;
        const onAt = (at: number) =>
          holds.some((h) => h.start <= at && at < Math.min(h.until, h.releasedAt ?? Infinity));
        const lostSaid = reports.filter((r) => r.message.includes('never arrived'));
        // The lost ones: sent by the server before the source said so, first read after it.
        for (const said of lost) {
          const before = new Set(arrivals.filter((a) => a.at < said.at).map((a) => a.seq));
          const back = arrivals.filter(
            (a) => a.at >= said.at && a.seq <= said.sentThrough && !before.has(a.seq),
          );
          redelivered += back.length;
          for (const { seq, at } of back)
            expect({ seq, at, held: onAt(at) }).toEqual({ seq, at, held: true });
        }
        for (const hold of holds) {
          expect(hold.until - hold.start).toBeLessThanOrEqual(HOLD_AT_MOST_MILLIS);
          // None outlives the reader: a stopped source holds nothing.
          expect(hold.releasedAt !== undefined || hold.until <= stoppedAt).toBe(true);
          if (hold.releasedAt !== undefined && hold.releasedAt >= stoppingAt) continue;
          if (hold.releasedAt === undefined || hold.releasedAt >= hold.until) {
            // Kept to its end: the source said that messages never arrived, or it failed again
            // before it knew (a stop while it asked), and held again.
            const within = (at: number) => at >= hold.start && at < hold.until;
            // (The hold taken as the source says so begins the same millisecond or just after.)
            const lostOrAgain =
              lostSaid.some((r) => r.at >= hold.start - 10 && r.at < hold.until) ||
              holds.some((other) => other !== hold && within(other.start));
            expect({ hold, lostOrAgain }).toEqual({ hold, lostOrAgain: true });
          } else {
            // Let go of early: nothing was lost (what came back after it is checked above).
            lettingGo += 1;
          }
        }
      }),
      { numRuns: 20, endOnFailure: true },
    );
    // Across the schedules, some failed pull lost nothing and was let go of early, and some
    // lost messages that came back held.
    console.log(
      `held on: ${redelivered} lost message(s) back; let go early: ${lettingGo} hold(s); ` +
        `schedules with a failed pull: ${failed}, without: ${unfailed}`,
    );
    expect(failed).toBeGreaterThan(unfailed);
    expect(lettingGo).toBeGreaterThan(0);
    expect(redelivered).toBeGreaterThan(0);
  }, 450_000);
});
