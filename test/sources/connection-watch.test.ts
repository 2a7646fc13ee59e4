// What a consuming loop says of its broker: a failed read is an outage, said once, with its end
// said when a read succeeds again; a failure that passes by itself (a NATS pull given up while the
// server was slow, its connection up) is said only when the read after it fails too. Checked on
// generated sequences of reads against that rule, segment by segment (the failures between two
// reads that succeeded).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionWatch } from '../../src/sources/broker-source.js';

type Read = 'ok' | 'failed' | 'passing';

/** What should be said: per segment of failures, `lost` (and `back` if a read ended it). */
function expected(reads: readonly Read[]): string[] {
  const said: string[] = [];
  let segment: Read[] = [];
  const end = (ok: boolean) => {
    const outage = segment.length >= 2 || segment.includes('failed');
    if (outage) said.push('lost');
    if (outage && ok) said.push('back');
    segment = [];
  };
  for (const read of reads) {
    if (read === 'ok') end(true);
    else segment.push(read);
  }
  end(false);
  return said;
}

describe('connection watch', () => {
  it('says an outage once and its end, and a failure that passes only when the next fails too', async () => {
    // Waits between retries end at once: only what is said is checked.
    const signal = AbortSignal.abort();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Read>('ok', 'failed', 'passing'), { maxLength: 40 }),
        async (reads) => {
          const said: string[] = [];
          const watch = new ConnectionWatch('NATS JetStream', (m) =>
            said.push(m.startsWith('lost ') ? 'lost' : m.includes(' is back after ') ? 'back' : m),
          );
          for (const read of reads) {
            if (read === 'ok') watch.ok();
            else await watch.failed(new Error('heartbeats missed'), signal, read === 'passing');
          }
          expect(said).toEqual(expected(reads));
        },
      ),
      { numRuns: 500 },
    );
  });
});
