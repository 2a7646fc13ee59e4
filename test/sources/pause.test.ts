// The pause every broker source and lease waits with: ended by its timer, its signal or its
// wakeup, whichever comes first, it leaves nothing behind on the signal. A NATS consumer paused by
// `--max-ack-pending` pauses every 50 ms for as long as it holds the bound; each pause used to
// leave its abort listener on the source's signal.
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pause, Wakeup } from '../../src/sources/broker-source.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('pause', () => {
  it('leaves no listener on its signal, however each pause ends', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each pause: its length, and whether it is woken before its timer or runs out.
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 3 }), woken: fc.boolean() }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.boolean(),
        async (pauses, abortAtEnd) => {
          const stopping = new AbortController();
          const wakeup = new Wakeup();
          for (const { ms, woken } of pauses) {
            const paused = pause(woken ? 60_000 : ms, stopping.signal, wakeup);
            expect(listeners(stopping.signal)).toBe(1);
            if (woken) wakeup.wake();
            await paused;
            expect(listeners(stopping.signal)).toBe(0);
            expect(wakeup.ending).toBeUndefined();
          }
          const last = pause(60_000, stopping.signal, wakeup);
          if (abortAtEnd) stopping.abort();
          else wakeup.wake();
          await last;
          expect(listeners(stopping.signal)).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('resolves at once on a signal aborted before it, and a wake with no pause does nothing', async () => {
    const wakeup = new Wakeup();
    wakeup.wake();
    const stopping = new AbortController();
    stopping.abort();
    await pause(60_000, stopping.signal, wakeup);
    expect(wakeup.ending).toBeUndefined();
  });
});
