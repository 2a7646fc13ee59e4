// The sample logs in events/ (the docs and docker-compose.yml point at them) are accepted whole by
// auto-detection and give runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { INGEST_WINDOWS } from './helpers/fixture-logs.js';
import { createHarness } from './helpers/harness.js';

const dir = new URL('../events/', import.meta.url);
const samples = readdirSync(dir).filter((f) => f.endsWith('.ndjson'));

it('has a sample per runtime', () => {
  expect(samples.sort()).toEqual([
    'agent-sdk.ndjson',
    'crabtalk.ndjson',
    'oxi-agent-loop.ndjson',
    'run.ndjson',
  ]);
});

it.each(samples)('%s is accepted line by line and gives runs', (file) => {
  const h = createHarness(INGEST_WINDOWS);
  const stream = h.sink.openStream(file);
  const lines = readFileSync(new URL(file, dir), 'utf8').trim().split('\n');
  const results = lines.map((l) => stream.handleJson(l));
  expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
  h.sink.endOpenRuns();
  expect(h.spans().filter((s) => s.name.startsWith('invoke_agent')).length).toBeGreaterThan(5);
});
