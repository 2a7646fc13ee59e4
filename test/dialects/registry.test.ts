// The dialect registry is the one place that knows the runtimes: the names in events/, a decoder
// for each, and the run id of a raw line for those that name their run in every line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { behestRunIdOf } from '../../src/dialects/behest/behest-run-id.js';
import { DIALECTS, routesByRun, runIdOfLine } from '../../src/dialects/registry.js';
import { RUNTIME_DIALECTS, isDialectName } from '../../src/events/dialect-name.js';
import { fixture } from '../helpers/fixture-logs.js';

/** What a full parse says the run is: the reference the raw reader must agree with. */
function parsedRunId(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    const entries = Array.isArray(value) ? [] : Object.entries(value ?? {});
    const payload = entries.length === 1 ? (entries[0]![1] as { run_id?: unknown } | null) : null;
    const runId = payload?.run_id;
    return typeof runId === 'string' && runId !== '' ? runId : undefined;
  } catch {
    return undefined;
  }
}

describe('dialect registry', () => {
  it('has a decoder for every runtime name, in detection order', () => {
    expect(DIALECTS.map((d) => d.name)).toEqual([...RUNTIME_DIALECTS]);
    expect(RUNTIME_DIALECTS.every(isDialectName)).toBe(true);
    expect(isDialectName('native')).toBe(true);
    expect(isDialectName('behest ')).toBe(false);
    expect(isDialectName(undefined)).toBe(false);
  });

  it('routes by run only the dialects whose every line names its run', () => {
    expect(RUNTIME_DIALECTS.filter(routesByRun)).toEqual(['behest']);
    const oxiLine = fixture('oxi/agent-loop.ndjson')[0]!;
    expect(runIdOfLine('oxi', oxiLine)).toBeUndefined();
  });

  it('reads the run id of every behest fixture line as a full parse does', () => {
    const lines = [
      'behest/concurrent.ndjson',
      'behest/variants.ndjson',
      'behest/garbage.ndjson',
      'behest/late-and-duplicate.ndjson',
    ].flatMap(fixture);
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) expect(runIdOfLine('behest', line)).toBe(parsedRunId(line));
  });

  it('agrees with a full parse on generated behest lines: any run id, escapes, spacing, field order', () => {
    const variant = fc.stringMatching(/^[A-Z][A-Za-z]{0,20}$/);
    const payload = fc.record({
      runId: fc.string({ minLength: 0, maxLength: 60, unit: 'binary' }),
      rest: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 4,
      }),
      runIdFirst: fc.boolean(),
      spaced: fc.boolean(),
    });
    fc.assert(
      fc.property(variant, payload, (name, p) => {
        const rest = Object.fromEntries(Object.entries(p.rest).filter(([k]) => k !== 'run_id'));
        const body = p.runIdFirst ? { run_id: p.runId, ...rest } : { ...rest, run_id: p.runId };
        const line = JSON.stringify({ [name]: body }, null, p.spaced ? 1 : undefined);
        expect(behestRunIdOf(line)).toBe(parsedRunId(line));
      }),
      { numRuns: 2000 },
    );
  });

  it('names no run for what is not a behest event', () => {
    for (const text of ['not json', '{"type":"agentStart"}', '"TextStart"', '[]', '{"A":{}}'])
      expect(behestRunIdOf(text)).toBeUndefined();
    expect(behestRunIdOf('{"A":{"run_id":""}}')).toBeUndefined();
    expect(behestRunIdOf('{"A":{"run_id":"bad\\u12"}}')).toBeUndefined();
  });
});
