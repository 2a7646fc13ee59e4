// Several OTLP destinations, each on its own: two real receivers, one refusing. The other
// receives everything on time; the refusing one gets everything once it recovers within the hold,
// or the exit code and stderr say what it missed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usageRun } from '../helpers/behest-lines.js';
import { startCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const id = (n: number) => `5e1f2a3b-0000-4c6d-8e7f-${String(n).padStart(12, '0')}`;

function runsFile(count: number): { file: string; spans: number } {
  const text = `${Array.from({ length: count }, (_, i) =>
    usageRun(id(i), 'openai', 'gpt-4o-mini', [
      { input: 100, output: 10 },
      { input: 200, output: 20 },
    ]),
  ).join('\n')}\n`;
  const h = createHarness();
  h.feed(text);
  const file = join(mkdtempSync(join(tmpdir(), 'destinations-')), 'runs.ndjson');
  writeFileSync(file, text);
  return { file, spans: h.spans().length };
}

const uniqueSpans = (r: OtlpReceiver) => new Set(r.spans.map((s) => s.spanId)).size;

describe('several OTLP destinations', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function receivers() {
    const primary = await startOtlpReceiver();
    const second = await startOtlpReceiver();
    cleanups.push(
      () => primary.close(),
      () => second.close(),
    );
    return { primary, second };
  }

  it('delivers to the other at once while one refuses for 20 s, and to the refusing one once it recovers', async () => {
    const { primary, second } = await receivers();
    second.refusing = { status: 503 };
    const { file, spans } = runsFile(60);
    const started = Date.now();
    const cli = startCli(['ingest', file], {
      OTEL_EXPORTER_OTLP_ENDPOINT: primary.url,
      AGENT_OTEL_BRIDGE_DESTINATIONS: JSON.stringify([
        { name: 'second', endpoint: second.url, protocol: 'http/json' },
      ]),
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    // The primary has every span while the second still refuses (before its 20 s are up).
    await waitFor(() => uniqueSpans(primary) === spans, 15_000, 'every span at the primary');
    expect(uniqueSpans(second)).toBe(0);
    // The second was tried meanwhile (its exports are not held back behind the primary's).
    await waitFor(() => second.refused > 0, 15_000, 'the second tried and refusing');
    expect(uniqueSpans(second)).toBe(0);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 20_000 - (Date.now() - started))),
    );
    second.refusing = undefined;
    const { code, stdout, stderr } = await cli.exited;
    expect(stderr).toContain('export outage (second,');
    expect(code).toBe(0);
    expect(uniqueSpans(second)).toBe(spans);
    expect(stdout).toContain(`delivered ${spans} of ${spans} spans`);
    expect(stdout).toContain(`delivered to second: ${spans} of ${spans} spans`);
    // Both have the metrics of every run.
    expect(totalCounted(primary)).toBe(60);
    expect(totalCounted(second)).toBe(60);
  });

  it('says what a destination missed, and exits 3, while the other has everything', async () => {
    const { primary, second } = await receivers();
    second.refusing = { status: 503 };
    const { file, spans } = runsFile(20);
    const cli = startCli(['ingest', file], {
      OTEL_EXPORTER_OTLP_ENDPOINT: primary.url,
      AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS: '3000',
      AGENT_OTEL_BRIDGE_DESTINATIONS: JSON.stringify([{ name: 'second', endpoint: second.url }]),
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    const { code, stderr, stdout } = await cli.exited;
    expect(code).toBe(3);
    expect(stderr).toMatch(
      new RegExp(`not delivered: ${spans} of ${spans} spans.*destination second`),
    );
    expect(uniqueSpans(primary)).toBe(spans);
    expect(stdout).toContain(`delivered to second: 0 of ${spans} spans`);
  });

  it('refuses a destination list it cannot use, naming the field', async () => {
    const cli = startCli(['ingest', '-'], {
      AGENT_OTEL_BRIDGE_DESTINATIONS: JSON.stringify([{ name: 'x', endpoint: 'ftp://nope' }]),
    });
    const { code, stderr } = await cli.exited;
    expect(code).toBe(2);
    expect(stderr).toContain(
      'AGENT_OTEL_BRIDGE_DESTINATIONS: [0].endpoint: expected an http:// or https:// URL',
    );
  });
});
