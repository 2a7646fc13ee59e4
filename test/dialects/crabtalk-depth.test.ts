// crabtalk's tool arguments arrive as JSON strings and are parsed into the ToolCallCompleted
// event; arguments nested deeper than the configured maxJsonDepth stay text.
import { describe, expect, it } from 'vitest';
import { createLineDecoder } from '../../src/dialects/detect.js';
import type { AgentEvent } from '../../src/events/agent-event.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

function argumentsOf(depth: number, maxJsonDepth?: number): unknown {
  const decoder = createLineDecoder('crabtalk', {
    scope: 'conversation',
    arrival: () => [1_748_779_200, 0],
    ...(maxJsonDepth === undefined ? {} : { maxJsonDepth }),
  });
  const args = JSON.stringify(nested(depth));
  const events: AgentEvent[] = [];
  for (const line of [
    '"TextStart"',
    `{"ToolCallsStart":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":${args}}}]}`,
  ]) {
    const { result } = decoder.decodeLine(line);
    if (result.ok) events.push(...result.events);
  }
  const call = events.find((e) => e.type === 'ToolCallCompleted');
  expect(call).toBeDefined();
  return call?.type === 'ToolCallCompleted' ? call.arguments : undefined;
}

describe('crabtalk tool arguments', () => {
  it('are parsed up to the default depth', () => {
    expect(argumentsOf(6)).toEqual(JSON.parse(nested(6)));
  });

  it('stay text beyond the configured maxJsonDepth', () => {
    expect(argumentsOf(6, 4)).toBe(nested(6));
    expect(argumentsOf(3, 4)).toEqual(JSON.parse(nested(3)));
  });
});
