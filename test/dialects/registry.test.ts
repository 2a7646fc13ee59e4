// The dialect registry is the one place that knows the runtimes: the names in events/, a decoder
// for each, and the run id of a raw line for those that name their run in every line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { behestRunIdOf } from '../../src/dialects/behest/behest-run-id.js';
import {
  DIALECTS,
  plainRunIdInText,
  plainRunIdOfLine,
  routesByRun,
  runIdOfLine,
} from '../../src/dialects/registry.js';
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

  it('reads a run id from raw bytes only where the decoded line says the same', () => {
    // Lines as serde writes them, then bent: spacing, escapes, non-ASCII and control characters in
    // the id, a byte order mark, a cut, stray bytes. Where the byte reader answers, it must give
    // what the text reader gives for the decoded line; on serde's own shape with a plain ASCII id
    // it must answer.
    const plainId = fc.stringMatching(/^[\x21\x23-\x5b\x5d-\x7e]{1,40}$/);
    const anyId = fc.oneof(plainId, fc.string({ minLength: 0, maxLength: 20, unit: 'binary' }));
    const bend = fc.oneof(
      fc.constant((b: Buffer) => b),
      fc.constant((b: Buffer) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b])),
      fc.constant((b: Buffer) => Buffer.from(b.toString('latin1').replace(':{', ': {'), 'latin1')),
      fc.nat().map((n) => (b: Buffer) => b.subarray(0, n % (b.length + 1))),
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([n, byte]) => (b: Buffer) => {
        const copy = Buffer.from(b);
        if (copy.length > 0) copy[n % copy.length] = byte;
        return copy;
      }),
    );
    fc.assert(
      fc.property(
        // Variant names as serde writes them, and any other printable name.
        fc.oneof(
          fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,12}$/),
          fc.string({ minLength: 1, maxLength: 8 }),
        ),
        anyId,
        bend,
        (name, runId, bent) => {
          const serde = Buffer.from(
            JSON.stringify({ [name]: { run_id: runId, timestamp: 't' } }),
            'utf8',
          );
          const bytes = bent(serde);
          const plain = plainRunIdOfLine('behest', bytes);
          // The same line decoded with others around it, as a chunk is (a byte order mark kept
          // as a character), is read alike where it lies.
          let inChunk: string | undefined;
          try {
            inChunk = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
          } catch {
            inChunk = undefined;
          }
          if (inChunk !== undefined) {
            const before = '{"RunStarted":{"run_id":"before"}}\n';
            const chunk = `${before}${inChunk}\n{"RunStarted":{"run_id":"after"}}\n`;
            const from = before.length;
            expect(plainRunIdInText('behest', chunk, from, from + inChunk.length)).toBe(plain);
          }
          if (
            bytes.equals(serde) &&
            /^[A-Za-z][A-Za-z0-9]*$/.test(name) &&
            /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(runId)
          )
            expect(plain).toBe(runId);
          if (plain === undefined) return;
          let text: string;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
          } catch {
            return; // an undecodable line: routed by its bytes, rejected by its worker
          }
          expect(plain).toBe(behestRunIdOf(text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reads a line where it lies in a chunk, and no further than its end', () => {
    const line = '{"ToolCallStarted":{"run_id":"run-7","call_id":"c1"}}';
    const chunk = `{"RunStarted":{"run_id":"run-6"}}\n${line}\n`;
    const from = chunk.indexOf(line);
    expect(plainRunIdInText('behest', chunk, from, from + line.length)).toBe('run-7');
    // A range that ends before the id does cannot name it, whatever follows in the text.
    const idEnds = chunk.indexOf('"', chunk.indexOf('run-7'));
    for (const to of [idEnds, idEnds - 1, from + 10])
      expect(plainRunIdInText('behest', chunk, from, to)).toBeUndefined();
    // Nor does a range that starts anywhere but the line's start.
    expect(plainRunIdInText('behest', chunk, from + 1, from + line.length)).toBeUndefined();
  });
});
