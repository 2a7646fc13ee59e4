// The partition of a run is a pure function of its id: the router, every instance and every
// process agree, and runs spread over the partitions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fnv1a32,
  partitionOf,
  partitionOfEvent,
  runIdOf,
} from '../../src/partitions/partition-of.js';

describe('partitions', () => {
  it('is FNV-1a (reference values)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('puts every event of a run in its partition, whatever else the event says', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 64 }), fc.string(), (runId, p, delta) => {
        const a = JSON.stringify({ RunStarted: { run_id: runId, timestamp: 'x' } });
        const b = JSON.stringify({ TextDelta: { run_id: runId, delta } });
        expect(partitionOfEvent(a, p)).toBe(partitionOf(runId, p));
        expect(partitionOfEvent(b, p)).toBe(partitionOf(runId, p));
      }),
    );
  });

  it('spreads runs evenly enough', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i += 1) counts[partitionOf(crypto.randomUUID(), 8)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });

  it('sends what has no run id to partition 0', () => {
    expect(runIdOf('not json')).toBeUndefined();
    expect(runIdOf('{"type":"agentStart"}')).toBeUndefined();
    expect(partitionOfEvent('"TextStart"', 5)).toBe(0);
  });
});
