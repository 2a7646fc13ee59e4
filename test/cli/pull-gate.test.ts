// When a broker source may pull: it pauses at --max-ack-pending and while the span queue is over
// half full, says each pause once, and says what frees messages: checkpoints where they are kept,
// else only a run's end (so a run longer than the bound never ends: said, not left to be found).
import { describe, expect, it } from 'vitest';
import { pullGate } from '../../src/cli/commands/pull-gate.js';
import type { PullGateParts } from '../../src/cli/commands/pull-gate.js';

function gate(over: Partial<PullGateParts> & { held: number; load?: number }) {
  const said: string[] = [];
  let relieved = 0;
  let exported = 0;
  const parts: PullGateParts = {
    pending: () => over.held,
    maxPending: over.maxPending ?? 10,
    spanQueueLoad: () => over.load ?? 0,
    exportNow: () => (exported += 1),
    relieve: 'relieve' in over ? over.relieve : () => (relieved += 1),
    say: (line) => said.push(line),
  };
  return { gate: pullGate(parts), said, relieved: () => relieved, exported: () => exported };
}

describe('pull gate', () => {
  it('pulls below the bound with the span queue at most half full', () => {
    const g = gate({ held: 4, load: 0.5 });
    expect(g.gate.canPull()).toBe(true);
    expect(g.said).toEqual([]);
    expect(g.exported()).toBe(0);
  });

  it('pauses at the bound, checkpoints open runs, and says so once', () => {
    const g = gate({ held: 10 });
    expect(g.gate.canPull()).toBe(false);
    expect(g.gate.canPull()).toBe(false);
    expect(g.relieved()).toBe(1);
    expect(g.exported()).toBe(2);
    expect(g.said).toHaveLength(1);
    expect(g.said[0]).toContain('open runs are checkpointed meanwhile');
  });

  it('says, without checkpoints, that a run longer than the bound never ends', () => {
    const g = gate({ held: 10, relieve: undefined });
    expect(g.gate.canPull()).toBe(false);
    expect(g.said).toHaveLength(1);
    expect(g.said[0]).toContain('no checkpoints are kept');
    expect(g.said[0]).toContain('a run with more events than --max-ack-pending');
  });

  it('pauses while the span queue is over half full, and past full while spans wait', () => {
    for (const load of [0.51, 1, 3.5]) {
      const g = gate({ held: 0, load });
      expect(g.gate.canPull()).toBe(false);
      expect(g.said).toHaveLength(1);
      expect(g.said[0]).toContain('span export queue is over half full');
    }
  });
});
