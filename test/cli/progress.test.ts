// The progress line of a terminal: how much, how fast, and for a file of known size how far and
// how long is left.
import { expect, it } from 'vitest';
import { renderProgress, renderSummary } from '../../src/cli/output/summary.js';

const stats = {
  events: { accepted: 900, rejected: 3, ignored: 0, late: 0, duplicate: 0 },
  runs: { open: 4, completed: 20, failed: 2, cancelled: 1, abandoned: 0 },
  cost: { usd: 0.42, pricedCalls: 38, unpricedCalls: 2 },
};

it('says lines, runs and rejections', () => {
  expect(renderProgress(1000, stats)).toBe('lines 1,000  runs open 4 finished 23  rejected 3');
});

it('adds the rate, the share read and the time left when the size is known', () => {
  expect(
    renderProgress(1000, stats, { seconds: 2, readBytes: 250_000, totalBytes: 1_000_000 }),
  ).toBe('lines 1,000  runs open 4 finished 23  rejected 3  500 lines/s  25 %  about 6 s left');
  // stdin: no size, so only the rate.
  expect(renderProgress(1000, stats, { seconds: 4, readBytes: 10 })).toBe(
    'lines 1,000  runs open 4 finished 23  rejected 3  250 lines/s',
  );
});

it('sums up the cost, saying how many calls no table priced', () => {
  const lines = renderSummary({
    command: 'ingest',
    lines: 1000,
    seconds: 1,
    stats,
    destination: 'terminal',
  });
  expect(lines).toContain('  cost    $0.42  (2 of 40 model calls unpriced)');
  const unpricedOnly = { ...stats, cost: { usd: 0, pricedCalls: 0, unpricedCalls: 3 } };
  expect(
    renderSummary({
      command: 'ingest',
      lines: 1,
      seconds: 1,
      stats: unpricedOnly,
      destination: 'x',
    }),
  ).toContain('  cost    unpriced  (3 of 3 model calls unpriced)');
  const none = { ...stats, cost: { usd: 0, pricedCalls: 0, unpricedCalls: 0 } };
  expect(
    renderSummary({ command: 'ingest', lines: 1, seconds: 1, stats: none, destination: 'x' }).some(
      (l) => l.includes('cost'),
    ),
  ).toBe(false);
});
