// Two streams that begin alike never run into each other: every crabtalk JSON log opens with
// "TextStart" and carries no times and no conversation, so the ids the bridge derives for their
// first runs are equal; the second stream's run is renamed while the first one's is open.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../helpers/harness.js';

const run = readFileSync(new URL('../fixtures/crabtalk/run.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n');

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
});
