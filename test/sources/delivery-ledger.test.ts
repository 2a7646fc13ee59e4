import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../src/sources/delivery-ledger.js';
import type { Delivery } from '../../src/sources/delivery.js';

function delivery(log: string[], name: string): Delivery {
  return { ack: () => log.push(`ack ${name}`), nak: (ms) => log.push(`nak ${name} ${ms}`) };
}

/** The one span of each run `r<i>` (its trace `t<i>`, its span `s<i>`). */
const spansOf = (...runs: number[]) => new Map(runs.map((i) => [`t${i}`, [`s${i}`]]));

function ledgerWithRuns(count: number) {
  const log: string[] = [];
  const news: string[] = [];
  const ledger = new DeliveryLedger(
    {
      outage: () => news.push('outage'),
      recovered: () => news.push('recovered'),
      forgetRun: (runId) => log.push(`forget ${runId}`),
    },
    () => 1000,
  );
  for (let i = 0; i < count; i += 1) {
    ledger.settle(delivery(log, `m${i}`), {
      outcome: 'accepted',
      dialect: 'behest',
      runId: `r${i}`,
    });
    ledger.runEnded({
      runId: `r${i}`,
      traceId: `t${i}`,
      dialect: 'behest',
      outcome: 'completed',
      iterations: 1,
      synthesized: false,
      spanCount: 1,
      spanIds: [`s${i}`],
    });
  }
  return { ledger, log, news };
}

describe('delivery ledger', () => {
  it('skips what brought nothing (a duplicate, a late event) where the source can, acknowledging only where it cannot', () => {
    const log: string[] = [];
    const ledger = new DeliveryLedger({
      outage: () => undefined,
      recovered: () => undefined,
      forgetRun: () => undefined,
    });
    const skippable = (name: string): Delivery => ({
      ...delivery(log, name),
      skip: () => log.push(`skip ${name}`),
    });
    ledger.settle(skippable('copy'), { outcome: 'duplicate', dialect: 'behest', runId: 'r' });
    ledger.settle(skippable('late'), { outcome: 'late', dialect: 'behest', runId: 'r' });
    ledger.settle(delivery(log, 'plain'), { outcome: 'duplicate', dialect: 'behest', runId: 'r' });
    ledger.settle(skippable('kept'), { outcome: 'accepted', dialect: 'behest', runId: 'r' });
    expect(log).toEqual(['skip copy', 'skip late', 'ack plain']);
    expect(ledger.acknowledged).toBe(3);
    expect(ledger.pending).toBe(1);
  });

  it('gives every run of one failed export the same redelivery delay, doubling per failed export', () => {
    const { ledger, log } = ledgerWithRuns(6);
    ledger.spansFailed(spansOf(0, 1, 2), new Error('503'));
    ledger.spansFailed(spansOf(3, 4, 5), new Error('503'));
    expect(log.filter((l) => l.startsWith('nak'))).toEqual([
      'nak m0 1000',
      'nak m1 1000',
      'nak m2 1000',
      'nak m3 2000',
      'nak m4 2000',
      'nak m5 2000',
    ]);
    expect(ledger.pending).toBe(0);
  });

  it('reports one outage while either signal fails, and its end when both export again', () => {
    const { ledger, news } = ledgerWithRuns(1);
    ledger.metricsFailed(new Error('no answer'));
    ledger.spansExported(spansOf(0)); // spans fine, metrics still failing
    ledger.metricsFailed(new Error('no answer'));
    expect(news).toEqual(['outage']);
    ledger.metricsExported(2000);
    expect(news).toEqual(['outage', 'recovered']);
  });

  it('redelivers the runs of a superseded failure without saying an outage or waiting longer', () => {
    const { ledger, log, news } = ledgerWithRuns(3);
    ledger.spansExported(spansOf(0));
    ledger.spansFailed(spansOf(1), new Error('timeout'), true);
    ledger.metricsFailed(new Error('timeout'), true);
    expect(news).toEqual([]);
    ledger.spansFailed(spansOf(2), new Error('503'));
    expect(news).toEqual(['outage']);
    expect(log.filter((l) => l.startsWith('nak'))).toEqual(['nak m1 1000', 'nak m2 1000']);
  });

  it('acknowledges a run only after its spans and a later metric collection were exported', () => {
    const { ledger, log } = ledgerWithRuns(1);
    ledger.metricsExported(5000); // collected before the spans were exported: not enough
    expect(log).toEqual([]);
    ledger.spansExported(spansOf(0));
    expect(log).toEqual([]);
    ledger.metricsExported(999); // collected before the run ended
    expect(log).toEqual([]);
    ledger.metricsExported(1000);
    expect(log).toEqual(['ack m0']);
  });

  it('fails a run whose spans failed before it ended together with its terminal message', async () => {
    const log: string[] = [];
    const ledger = new DeliveryLedger(
      {
        outage: () => undefined,
        recovered: () => undefined,
        forgetRun: (r) => log.push(`forget ${r}`),
      },
      () => 1000,
    );
    const run = { runId: 'r', traceId: 't', dialect: 'behest', outcome: 'completed' as const };
    ledger.settle(delivery(log, 'start'), { outcome: 'accepted', dialect: 'behest', runId: 'r' });
    // A tool span, while the run is open.
    ledger.spansFailed(new Map([['t', ['tool']]]), new Error('500'));
    // The terminal message: the run ends while it is handled, then it is settled.
    ledger.runEnded({
      ...run,
      iterations: 1,
      synthesized: false,
      spanCount: 3,
      spanIds: ['run', 'iteration', 'tool'],
    });
    ledger.settle(delivery(log, 'end'), { outcome: 'accepted', dialect: 'behest', runId: 'r' });
    await Promise.resolve();
    expect(log).toEqual(['forget r', 'nak start 2000', 'nak end 2000']);
    expect(ledger.pending).toBe(0);
  });

  it('keeps the terminal message with its run when every span was exported before the run ended', () => {
    const log: string[] = [];
    const ledger = new DeliveryLedger(
      { outage: () => undefined, recovered: () => undefined, forgetRun: () => undefined },
      () => 1000,
    );
    ledger.settle(delivery(log, 'start'), { outcome: 'accepted', dialect: 'behest', runId: 'r' });
    // E.g. a redelivered copy's spans, already out.
    ledger.spansExported(new Map([['t', ['run', 'iteration']]]));
    ledger.runEnded({
      runId: 'r',
      traceId: 't',
      dialect: 'behest',
      outcome: 'completed',
      iterations: 1,
      synthesized: false,
      spanCount: 2,
      spanIds: ['run', 'iteration'],
    });
    ledger.settle(delivery(log, 'end'), { outcome: 'accepted', dialect: 'behest', runId: 'r' });
    expect(ledger.pending).toBe(2);
    ledger.metricsExported(1000);
    expect(log).toEqual(['ack start', 'ack end']);
    expect(ledger.pending).toBe(0);
  });
});
