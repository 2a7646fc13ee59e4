// Streams that begin alike never run into each other: every crabtalk JSON log opens with
// "TextStart" and carries no times and no conversation, so the ids the bridge derives for their
// runs are equal; a later stream's runs are renamed, whether the first stream's run is still being
// read, waits in the reorder window, or has ended.
import fc from 'fast-check';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { InputDialect } from '../../src/events/dialect-name.js';
import { fixture, INGEST_WINDOWS, steadyClock } from '../helpers/fixture-logs.js';
import { createHarness } from '../helpers/harness.js';

const run = fixture('crabtalk/run.ndjson');

/** Logs of every runtime without run ids, and their dialect. */
const LOGS: readonly (readonly [InputDialect, string[]])[] = [
  ['crabtalk', run],
  ['crabtalk', fixture('crabtalk/loop.ndjson')],
  ['oxi', fixture('oxi/agent-loop.ndjson')],
  ['oxi', fixture('oxi/legacy.ndjson')],
  ['agent-sdk', fixture('agent-sdk/run.ndjson')],
  ['agent-sdk', fixture('agent-sdk/envelope.ndjson')],
];

/** Each trace as its spans' names, outcomes and events, without ids or times. */
function traceShapes(spans: readonly ReadableSpan[]): string[] {
  const traces = new Map<string, string[]>();
  for (const s of spans) {
    const id = s.spanContext().traceId;
    const outcome = s.attributes['agent.run.outcome'];
    const shape = [
      s.name,
      typeof outcome === 'string' ? outcome : '',
      ...s.events.map((e) => e.name),
    ];
    traces.set(id, [...(traces.get(id) ?? []), shape.join(':')]);
  }
  return [...traces.values()].map((t) => t.sort().join('|')).sort();
}

describe('derived run ids across streams', () => {
  it("keeps an unfinished run of one stream apart from another stream's run that begins alike", () => {
    const h = createHarness();
    const a = h.sink.openStream('a.ndjson', 'crabtalk');
    const b = h.sink.openStream('b.ndjson', 'crabtalk');
    // Stream a stops in the middle of its run; stream b holds whole runs.
    for (const line of run.slice(0, 10)) a.handleJson(line);
    for (const line of run) b.handleJson(line);
    h.sink.endOpenRuns('end_of_input');
    const roots = h.spans().filter((s) => s.name.startsWith('invoke_agent'));
    const outcomes = roots.map((r) => r.attributes['agent.run.outcome']).sort();
    expect(outcomes).toEqual(['abandoned', 'cancelled', 'completed', 'failed']);
    expect(new Set(roots.map((r) => r.spanContext().traceId)).size).toBe(4);
    // b's runs are whole: what b alone gives, run for run.
    const alone = createHarness();
    const only = alone.sink.openStream('b.ndjson', 'crabtalk');
    for (const line of run) only.handleJson(line);
    const view = (spans: ReturnType<typeof h.spans>) =>
      spans
        .filter(
          (s) =>
            s.name.startsWith('invoke_agent') && s.attributes['agent.run.outcome'] !== 'abandoned',
        )
        .map((s) => [s.attributes['agent.run.outcome'], s.attributes['gen_ai.usage.input_tokens']])
        .sort();
    expect(view(h.spans())).toEqual(view(alone.spans()));
  });

  it('keeps the ids a log gets alone when nothing collides', () => {
    const ids = (scope: string) => {
      const h = createHarness();
      const s = h.sink.openStream(scope, 'crabtalk');
      for (const line of run) s.handleJson(line);
      return h
        .spans()
        .filter((sp) => sp.name.startsWith('invoke_agent'))
        .map((r) => r.attributes['agent.run.id'])
        .sort();
    };
    expect(ids('x')).toEqual(ids('stdin'));
  });

  it('gives every stream the runs it gives alone, however streams that begin alike interleave', async () => {
    // Streams of whole logs and of logs cut anywhere, several of the same log, read line by line
    // in an order drawn at random, with the reorder window and grace period of `ingest` or with
    // none: the traces are those of each stream read alone, each its own, nothing counted late.
    const streams = fc.array(
      fc.record({ log: fc.nat(LOGS.length - 1), cut: fc.option(fc.nat(), { nil: undefined }) }),
      { minLength: 2, maxLength: 5 },
    );
    const schedule = fc.array(fc.nat(), { minLength: 1, maxLength: 400 });
    await fc.assert(
      fc.asyncProperty(streams, schedule, fc.boolean(), async (chosen, picks, windows) => {
        const options = windows ? { now: steadyClock(), ...INGEST_WINDOWS } : {};
        const inputs = chosen.map(({ log, cut }) => {
          const [dialect, lines] = LOGS[log]!;
          return {
            dialect,
            lines: cut === undefined ? lines : lines.slice(0, 1 + (cut % lines.length)),
          };
        });
        const expected: string[] = [];
        for (const [k, input] of inputs.entries()) {
          const alone = createHarness(options);
          const stream = alone.sink.openStream(`input-${k}`, input.dialect);
          for (const line of input.lines) stream.handleJson(line);
          await alone.sink.shutdown();
          expected.push(...traceShapes(alone.spans()));
        }
        const h = createHarness(options);
        const read = inputs.map((input, k) => ({
          ...input,
          at: 0,
          stream: h.sink.openStream(`input-${k}`, input.dialect),
        }));
        for (let step = 0; ; step += 1) {
          const left = read.filter((r) => r.at < r.lines.length);
          if (left.length === 0) break;
          const next = left[(picks[step % picks.length] ?? 0) % left.length]!;
          next.stream.handleJson(next.lines[next.at++]!);
        }
        await h.sink.shutdown();
        expect(traceShapes(h.spans())).toEqual(expected.sort());
        expect(h.sink.stats().events).toMatchObject({ rejected: 0, late: 0, duplicate: 0 });
      }),
      { numRuns: 150 },
    );
  });
});
