// Identifiers the runtime sends are bounded like free text: a cut one keeps a digest of the whole,
// so distinct long ids stay distinct and a tool's start and finish still meet.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScrubber, DEFAULT_SCRUB_PATTERNS } from '../../src/index.js';
import { createIdentifierGuard, MAX_IDENTIFIER_LENGTH } from '../../src/events/identifiers.js';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

const started = (callId: string): AgentEvent => ({
  type: 'ToolExecutionStarted',
  runId: 'r',
  time: [1, 0],
  callId,
  toolName: 'bash',
});

const KEEP = { name: (t: string) => t };

describe('identifier guard', () => {
  it('returns the same event when nothing needs changing', () => {
    const guard = createIdentifierGuard(KEEP, () => undefined);
    const event = started('call_1');
    expect(guard(event)).toBe(event);
  });

  it('cuts long ids to the bound, keeps them apart by a digest, and counts each cut', () => {
    let cuts = 0;
    const guard = createIdentifierGuard(KEEP, () => (cuts += 1));
    const a = guard(started(`${'x'.repeat(400)}a`)) as { callId: string };
    const b = guard(started(`${'x'.repeat(400)}b`)) as { callId: string };
    expect(a.callId.length).toBeLessThanOrEqual(MAX_IDENTIFIER_LENGTH);
    expect(a.callId).not.toBe(b.callId);
    expect(guard(started(`${'x'.repeat(400)}a`))).toEqual(a);
    expect(cuts).toBe(2); // the third was remembered
  });

  it('exports a name of another shape, or holding a secret, as a stable digest, and counts it', () => {
    let digests = 0;
    const guard = createIdentifierGuard(
      { name: (t) => t.replace(/hunter2/g, '[REDACTED]') },
      () => undefined,
      () => (digests += 1),
    );
    const tool = (toolName: string) =>
      (
        guard({
          ...(started('c1') as Extract<AgentEvent, { type: 'ToolExecutionStarted' }>),
          toolName,
        }) as { toolName: string }
      ).toolName;
    expect(tool('read_file')).toBe('read_file');
    expect(tool('mcp__github__create_issue')).toBe('mcp__github__create_issue');
    expect(tool('accounts/fireworks/models/llama-v3p1-70b')).toBe(
      'accounts/fireworks/models/llama-v3p1-70b',
    );
    const sentence = tool('please run this with password hunter2');
    expect(sentence).toMatch(/^#[0-9a-f]{16}$/);
    expect(tool('please run this with password hunter2')).toBe(sentence);
    expect(tool('hunter2')).toMatch(/^#[0-9a-f]{16}$/);
    expect(tool('Read File')).toMatch(/^#[0-9a-f]{16}$/);
    expect(digests).toBe(3);
  });
});

it('a tool with a 2 000-character call id is one span, with the cut id', () => {
  const h = createHarness();
  const id = 'k'.repeat(2000);
  h.feed(
    [
      behest('RunStarted', RUN_A, '00', {}),
      behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
      behest('ToolExecutionStarted', RUN_A, '00.200', { call_id: id, tool_name: 'bash' }),
      behest('ToolExecutionFinished', RUN_A, '00.300', {
        call_id: id,
        tool_name: 'bash',
        result: { Success: { output: 'ok' } },
        duration_ms: 100,
      }),
      behest('RunCompleted', RUN_A, '00.400', {}),
    ].join('\n'),
  );
  const tools = h.spans().filter((s) => s.name === 'execute_tool bash');
  expect(tools).toHaveLength(1);
  const callId = tools[0]!.attributes['gen_ai.tool.call.id'] as string;
  expect(callId.length).toBeLessThanOrEqual(MAX_IDENTIFIER_LENGTH);
  expect(callId.startsWith('kkkk')).toBe(true);
  expect(tools[0]!.status.code).not.toBe(2);
});

it('skips UUIDs because no rule masks one (checked against the full rule set)', () => {
  const scrub = createScrubber(DEFAULT_SCRUB_PATTERNS, { personalData: true });
  fc.assert(
    fc.property(fc.uuid(), (id) => {
      expect(scrub(id)).toBe(id);
      expect(scrub(id.toUpperCase())).toBe(id.toUpperCase());
    }),
    { numRuns: 2000 },
  );
});
