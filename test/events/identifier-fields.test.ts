// Every identifier an event carries, on every event type, is held to its shape before anything is
// exported. The guard looks at each event type's own identifier fields only (a table the compiler
// holds to the event types); here runs of every event type, in orders the machine chooses, carry
// a name or id of the wrong shape in every identifier field, their own and other types' alike, and
// no span name, span or span-event attribute, or metric attribute may hold one of them.
import fc from 'fast-check';
import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { ID_FIELDS } from '../../src/events/identifiers.js';
import { createHarness } from '../helpers/harness.js';

/** A name or id no identifier may be exported as: a sentence, marked to be found. */
const leak = (n: number, field: string) => `leaked ${field} ${n} in a sentence`;

type Body = Record<string, unknown> & { type: AgentEvent['type'] };
const BODIES: Body[] = [
  { type: 'ContextBuilt', messageCount: 3 },
  { type: 'ModelStarted', iteration: 1 },
  { type: 'TextDelta', delta: 'hello' },
  { type: 'ToolCallStarted' },
  { type: 'ToolCallDelta', argumentsDelta: '{}' },
  { type: 'ToolCallCompleted', arguments: '{}' },
  { type: 'ToolExecutionStarted' },
  { type: 'ToolExecutionFinished', isError: false, result: 'ok' },
  { type: 'AssistantMessageCommitted', finishReason: 'stop' },
  { type: 'ToolMessageCommitted' },
  { type: 'UsageRecorded', usage: { inputTokens: 10, outputTokens: 5 } },
  { type: 'Annotation', target: 'run', attributes: { note: 'x' } },
  { type: 'DoomLoopDetected', description: 'same tool three times' },
  { type: 'CompactionCircuitOpened', consecutiveFailures: 3 },
];
const TERMINALS: Body[] = [
  { type: 'RunCompleted', finishReason: 'stop' },
  { type: 'RunFailed', error: 'boom' },
  { type: 'RunCancelled' },
];

const run = fc.record({
  body: fc.array(fc.constantFrom(...BODIES), { minLength: 1, maxLength: 14 }),
  terminal: fc.constantFrom(...TERMINALS),
  // Which identifier fields carry a wrong-shaped value, event by event.
  marked: fc.array(fc.subarray([...ID_FIELDS], { minLength: 1 }), { minLength: 16, maxLength: 16 }),
});

function strings(attributes: Attributes | undefined): string[] {
  return Object.values(attributes ?? {}).flatMap((v) =>
    Array.isArray(v) ? v.map(String) : [String(v)],
  );
}

describe('identifier fields', () => {
  it('exports no wrong-shaped name or id from any identifier field of any event type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(run, { minLength: 1, maxLength: 4 }), async (runs) => {
        const h = createHarness();
        let n = 0;
        runs.forEach((r, i) => {
          const runId = `run-${i}`;
          const events = [{ type: 'RunStarted' }, ...r.body, r.terminal] as Body[];
          events.forEach((body, k) => {
            const event: Record<string, unknown> = { ...body, runId, time: [100 + k, i] };
            for (const field of r.marked[k % r.marked.length]!)
              event[field] = leak((n += 1), field);
            h.sink.handle(event as unknown as AgentEvent);
          });
        });
        await h.sink.shutdown();
        const exported = [
          ...h
            .spans()
            .flatMap((s) => [
              s.name,
              ...strings(s.attributes),
              ...s.events.flatMap((e) => [e.name, ...strings(e.attributes)]),
            ]),
          ...(await h.metrics()).flatMap((m) => m.dataPoints.flatMap((p) => strings(p.attributes))),
        ];
        expect(h.spans().length).toBeGreaterThan(0);
        expect(exported.filter((text) => text.includes('leaked'))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
