import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentRunIdGenerator, toSpanId, toTraceId } from '../../src/index.js';
import { withIdHint } from '../../src/mapping/id-generator.js';

describe('trace ids', () => {
  it('uses the 128 bits of a UUID run id', () => {
    expect(toTraceId('behest', '0190F3A2-7C4E-4B8A-9D2E-5F6A7B8C9D0E')).toBe(
      '0190f3a27c4e4b8a9d2e5f6a7b8c9d0e',
    );
  });

  it('hashes other run ids with the dialect', () => {
    const expected = createHash('sha256').update('oxi\0session-42').digest('hex').slice(0, 32);
    expect(toTraceId('oxi', 'session-42')).toBe(expected);
    expect(toTraceId('behest', 'session-42')).not.toBe(expected);
  });

  it('never uses the invalid all-zero id', () => {
    expect(toTraceId('behest', '00000000-0000-0000-0000-000000000000')).not.toBe('0'.repeat(32));
  });
});

describe('span ids', () => {
  it('are the first 8 bytes of SHA-256 over the trace id and role', () => {
    const traceId = '0190f3a27c4e4b8a9d2e5f6a7b8c9d0e';
    const expected = createHash('sha256')
      .update(`${traceId}\0tool/call_1`)
      .digest('hex')
      .slice(0, 16);
    expect(toSpanId(traceId, 'tool/call_1')).toBe(expected);
    expect(toSpanId(traceId, 'run')).not.toBe(toSpanId(traceId, 'iteration/1'));
  });
});

describe('AgentRunIdGenerator', () => {
  it('hands out a hinted id once, then random ids', () => {
    const generator = new AgentRunIdGenerator();
    const ids = withIdHint('a'.repeat(32), 'b'.repeat(16), () => [
      generator.generateSpanId(),
      generator.generateTraceId(),
      generator.generateSpanId(),
    ]);
    expect(ids.slice(0, 2)).toEqual(['b'.repeat(16), 'a'.repeat(32)]);
    expect(ids[2]).toMatch(/^[0-9a-f]{16}$/);
    expect(ids[2]).not.toBe('b'.repeat(16));
    expect(generator.generateTraceId()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('withdraws an unused hint', () => {
    const generator = new AgentRunIdGenerator();
    withIdHint('c'.repeat(32), 'd'.repeat(16), () => undefined);
    expect(generator.generateSpanId()).not.toBe('d'.repeat(16));
    expect(generator.generateTraceId()).not.toBe('c'.repeat(32));
  });
});
