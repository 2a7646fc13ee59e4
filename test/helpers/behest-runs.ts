// Random, valid behest 0.2.2 runs in the order behest emits them (strictly increasing
// timestamps), and ways to deliver them as its publisher does: displaced, late, twice, interleaved.
import fc from 'fast-check';

/** One emitted event: its JSON line, and whether it may still arrive after the run's terminal. */
export interface Emitted {
  readonly line: string;
  readonly terminal: boolean;
}

const BASE_SECOND = 1_748_779_200; // 2025-06-01T12:00:00Z

function stamp(ns: bigint): string {
  const seconds = Number(ns / 1_000_000_000n);
  const fraction = String(ns % 1_000_000_000n).padStart(9, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

function runIdOf(index: number, salt: number): string {
  const hex = (index * 7919 + salt).toString(16).padStart(12, '0').slice(-12);
  return `0190f3a2-7c4e-4b8a-9d2e-${hex}`;
}

interface Shape {
  readonly iterations: readonly {
    readonly deltas: readonly string[];
    readonly tools: readonly { readonly name: string; readonly ok: boolean }[];
    readonly usage: readonly [number, number] | undefined;
  }[];
  readonly doomLoop: boolean;
  readonly breaker: boolean;
  readonly end: 'completed' | 'failed' | 'cancelled';
  readonly gaps: readonly number[];
}

const shape: fc.Arbitrary<Shape> = fc.record({
  iterations: fc.array(
    fc.record({
      deltas: fc.array(fc.constantFrom('The ', 'cat ', 'sat ', 'on ', 'the ', 'mat.'), {
        maxLength: 5,
      }),
      tools: fc.array(
        fc.record({ name: fc.constantFrom('get_weather', 'bash', 'read'), ok: fc.boolean() }),
        { maxLength: 2 },
      ),
      usage: fc.option(fc.tuple(fc.nat(5000), fc.nat(500)), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  doomLoop: fc.boolean(),
  breaker: fc.boolean(),
  end: fc.constantFrom('completed', 'failed', 'cancelled'),
  // Time between two consecutive events: 1 ns to 2 s.
  gaps: fc.array(fc.integer({ min: 1, max: 2_000_000_000 }), { minLength: 64, maxLength: 64 }),
});

/** The events of one run, as behest emits them. */
function emit(index: number, salt: number, s: Shape): Emitted[] {
  const runId = runIdOf(index, salt);
  let ns = BigInt(BASE_SECOND + index * 100) * 1_000_000_000n;
  let gap = 0;
  const out: Emitted[] = [];
  const add = (variant: string, payload: Record<string, unknown>, terminal = false) => {
    ns += BigInt(s.gaps[gap++ % s.gaps.length]!);
    out.push({
      line: JSON.stringify({ [variant]: { run_id: runId, ...payload, timestamp: stamp(ns) } }),
      terminal,
    });
  };
  add('RunStarted', { session_id: `s-${index}`, provider: 'openai', model: 'gpt-4o-mini' });
  if (s.breaker) add('CompactionCircuitOpened', { consecutive_failures: 3 });
  s.iterations.forEach((it, i) => {
    add('ContextBuilt', { message_count: 3 + 2 * i });
    add('ModelStarted', { provider: 'openai', model: 'gpt-4o-mini', iteration: i + 1 });
    for (const delta of it.deltas) add('TextDelta', { delta });
    it.tools.forEach((tool, t) => {
      const id = `call_${i}_${t}`;
      add('ToolCallStarted', { call_id: id, tool_name: tool.name });
      add('ToolCallDelta', { call_id: id, delta: '{"x":' });
      add('ToolCallCompleted', { call: { id, name: tool.name, arguments: { x: t } } });
    });
    if (it.usage !== undefined)
      add('UsageRecorded', {
        usage: { input_tokens: it.usage[0], output_tokens: it.usage[1], total_tokens: 0 },
      });
    add('AssistantMessageCommitted', { message_id: `m-${i}` });
    it.tools.forEach((tool, t) => {
      const id = `call_${i}_${t}`;
      add('ToolExecutionStarted', { call_id: id, tool_name: tool.name });
      add('ToolExecutionFinished', {
        call_id: id,
        tool_name: tool.name,
        result: tool.ok ? { Success: { output: { ok: true } } } : { Failure: { error: 'boom' } },
        duration_ms: 5,
      });
      add('ToolMessageCommitted', { message_id: `t-${i}-${t}` });
    });
  });
  if (s.doomLoop)
    add('DoomLoopDetected', { description: 'consecutive duplicate: bash called 3 times' });
  if (s.end === 'completed')
    add('RunCompleted', { finish_reason: 'stop', iterations: s.iterations.length }, true);
  else if (s.end === 'failed')
    add('RunFailed', { error: s.doomLoop ? 'doom loop detected' : 'provider error' }, true);
  else add('RunCancelled', {}, true);
  return out;
}

/** 1 to `max` runs, each a list of emitted events. */
export function behestRuns(max: number): fc.Arbitrary<Emitted[][]> {
  return fc
    .tuple(fc.array(shape, { minLength: 1, maxLength: max }), fc.nat(1_000_000))
    .map(([shapes, salt]) => shapes.map((s, i) => emit(i, salt, s)));
}

/** How one delivery departs from the emission order. */
export interface Delivery {
  /** Each event lands up to this many positions from its place in its run. */
  readonly window: number;
  /** Events moved to just after their run's terminal event (what a retried publish does). */
  readonly lateAfterTerminal: number;
  /** Events delivered a second time, later. */
  readonly duplicates: number;
}

/** Random choices for one delivery of `runs`. */
export function deliveryOf(runs: readonly Emitted[][], d: Delivery): fc.Arbitrary<string[]> {
  const total = runs.reduce((n, r) => n + r.length, 0);
  return fc
    .record({
      jitter: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
        minLength: total,
        maxLength: total,
      }),
      late: fc.array(fc.nat(10_000), {
        minLength: d.lateAfterTerminal,
        maxLength: d.lateAfterTerminal,
      }),
      dups: fc.array(fc.tuple(fc.nat(10_000), fc.nat(10_000)), {
        minLength: d.duplicates,
        maxLength: d.duplicates,
      }),
      merge: fc.array(fc.nat(runs.length - 1), { minLength: total * 2, maxLength: total * 2 }),
    })
    .map(({ jitter, late, dups, merge }) => {
      let j = 0;
      const perRun = runs.map((run) => {
        // Displacement: sort by position plus up to `window` positions of jitter.
        const keyed = run.map((e, i) => ({ e, key: i + jitter[j++]! * d.window }));
        keyed.sort((a, b) => a.key - b.key);
        const order = keyed.map((k) => k.e);
        return order;
      });
      for (const pick of late) {
        const run = perRun[pick % perRun.length]!;
        const movable = run.filter((e) => !e.terminal && !e.line.startsWith('{"RunStarted"'));
        if (movable.length === 0) continue;
        const e = movable[pick % movable.length]!;
        run.splice(run.indexOf(e), 1);
        run.push(e);
      }
      for (const [pick, at] of dups) {
        const run = perRun[pick % perRun.length]!;
        const e = run[pick % run.length]!;
        const from = run.indexOf(e) + 1;
        run.splice(from + (at % (run.length - from + 1)), 0, e);
      }
      // Interleave the runs, keeping each run's own delivery order.
      const out: string[] = [];
      const next = perRun.map(() => 0);
      let m = 0;
      while (out.length < perRun.reduce((n, r) => n + r.length, 0)) {
        const r = merge[m++ % merge.length]! % perRun.length;
        const run = perRun[r]!;
        const k = run.length === next[r]! ? next.findIndex((n, i) => n < perRun[i]!.length) : r;
        out.push(perRun[k]![next[k]!]!.line);
        next[k]! += 1;
      }
      return out;
    });
}
