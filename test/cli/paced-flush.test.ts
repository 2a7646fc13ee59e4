// The paced flush on schedules the machine chooses: one to three readers each finding flushes due,
// flushes that take any time, some failing, and every interleaving of their endings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PacedFlush } from '../../src/cli/paced-flush.js';

describe('PacedFlush', () => {
  it('runs one flush at a time, loses no flush asked for, and lets a reader on only once its flush has started', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
        async (s, readers, failures) => {
          let clock = 0;
          let running = 0;
          let mostRunning = 0;
          const started: number[] = [];
          const flushes = new PacedFlush(async () => {
            const failing = failures[started.length % failures.length]!;
            started.push((clock += 1));
            running += 1;
            mostRunning = Math.max(mostRunning, running);
            try {
              await s.schedule(Promise.resolve(), 'flush ends');
              if (failing) throw new Error('export failed');
            } finally {
              running -= 1;
            }
          });
          const asked: number[] = [];
          const read = async (dues: number) => {
            for (let i = 0; i < dues; i += 1) {
              await s.schedule(Promise.resolve(), 'lines read');
              const at = (clock += 1);
              asked.push(at);
              const waiting = flushes.due();
              if (waiting !== undefined) await waiting;
              // The flush this reader asked for (or one shared with another) has started.
              expect(started.some((t) => t > at)).toBe(true);
            }
          };
          const done = Promise.all(readers.map(read)).then(() => flushes.settled());
          await s.waitFor(done);
          expect(mostRunning).toBe(1);
          expect(running).toBe(0);
          // Every flush asked for was started after it was asked, and none more than asked.
          for (const at of asked) expect(started.some((t) => t > at)).toBe(true);
          expect(started.length).toBeLessThanOrEqual(asked.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers nothing to wait for while no flush runs', async () => {
    let calls = 0;
    const flushes = new PacedFlush(() => {
      calls += 1;
      return Promise.resolve();
    });
    expect(flushes.due()).toBeUndefined();
    expect(calls).toBe(1);
    await flushes.settled();
    expect(flushes.due()).toBeUndefined();
    expect(calls).toBe(2);
  });
});
