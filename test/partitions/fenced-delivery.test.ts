// A delivery read under an ownership sends its acknowledgement, negative acknowledgement, skip and
// keep-alive only while that ownership may act (docs/scaling-out.md, "Partition ownership"); one
// it may no longer send is refused, counted on the ownership and the message given back at once
// for the next owner. On generated ownerships (fenced or not, renewed at any time around the act
// window's edge, to the millisecond) and generated sequences of effects, every effect goes to the
// broker exactly when the ownership may act, and is counted as refused exactly when it may not.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fencedDelivery } from '../../src/partitions/fenced-delivery.js';
import { createOwnership, mayAct } from '../../src/partitions/ownership.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import type { Delivery } from '../../src/sources/delivery.js';

const LEASE = 2000;
const NOW = 1_800_000_000_000;
const source = { description: 'none' } as unknown as BrokerSource;

type Effect = 'ack' | 'nak' | 'skip' | 'keepAlive';

/** A delivery that writes down what reached the broker. */
function recording(options: { skip: boolean; release: boolean; keepAlive: boolean }) {
  const sent: string[] = [];
  const delivery: Delivery = {
    ack: () => sent.push('ack'),
    nak: (delay) => sent.push(`nak ${delay}`),
    sequence: 42,
    ...(options.skip ? { skip: () => sent.push('skip') } : {}),
    ...(options.release ? { release: () => sent.push('release') } : {}),
    ...(options.keepAlive ? { keepAlive: () => sent.push('keepAlive') } : {}),
  };
  return { delivery, sent };
}

describe('a delivery fenced by its ownership', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends each effect only while its ownership may act, and counts the others as refused', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        // Renewed from well before the act window's edge to after it, to the millisecond.
        fc.integer({ min: -2 * LEASE, max: LEASE / 2 }),
        fc.record({ skip: fc.boolean(), release: fc.boolean(), keepAlive: fc.boolean() }),
        fc.array(
          fc.record({
            effect: fc.constantFrom<Effect>('ack', 'nak', 'skip', 'keepAlive'),
            delay: fc.integer({ min: 0, max: 5000 }),
            fence: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (fenced, renewedBy, shape, effects) => {
          const own = createOwnership(5, 3, source, NOW + renewedBy);
          own.fenced = fenced;
          const { delivery, sent } = recording(shape);
          const fencedOne = fencedDelivery(own, delivery, LEASE);
          expect(fencedOne.partition).toBe(5);
          expect(fencedOne.sequence).toBe(42);
          const want: string[] = [];
          let refused = 0;
          for (const { effect, delay, fence } of effects) {
            const may = mayAct(own, LEASE);
            if (effect === 'keepAlive') {
              fencedOne.keepAlive?.();
              if (may && shape.keepAlive) want.push('keepAlive');
            } else {
              if (effect === 'ack') fencedOne.ack();
              else if (effect === 'nak') fencedOne.nak(delay);
              else fencedOne.skip?.();
              if (!may) {
                refused += 1;
                if (shape.release) want.push('release');
              } else if (effect === 'ack') want.push('ack');
              else if (effect === 'nak') want.push(`nak ${delay}`);
              else want.push(shape.skip ? 'skip' : 'ack');
            }
            // The ownership may be fenced between two effects (a lost renewal).
            if (fence) own.fenced = true;
          }
          expect(sent).toEqual(want);
          expect(own.refused).toBe(refused);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stops at the act window’s edge, to the millisecond', () => {
    const own = createOwnership(0, 1, source, NOW);
    const { delivery, sent } = recording({ skip: false, release: true, keepAlive: true });
    const fencedOne = fencedDelivery(own, delivery, LEASE);
    vi.setSystemTime(NOW + LEASE * 0.75);
    fencedOne.keepAlive?.();
    fencedOne.ack();
    vi.setSystemTime(NOW + LEASE * 0.75 + 1);
    fencedOne.keepAlive?.();
    fencedOne.ack();
    expect(sent).toEqual(['keepAlive', 'ack', 'release']);
    expect(own.refused).toBe(1);
  });
});
