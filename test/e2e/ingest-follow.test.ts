import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url)), 'utf8')
    .trim()
    .split('\n');

describe('ingest --follow', () => {
  it('tails a growing log across rotation and ends open runs at SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'follow-'));
    const log = join(dir, 'events.ndjson');
    const receiver = await startOtlpReceiver();
    const tools = fixture('tools-success-failure');
    const doom = fixture('doom-loop');
    const open = fixture('abandoned');
    writeFileSync(log, `${tools.slice(0, 10).join('\n')}\n`);
    const cli = startCli(['ingest', '--follow', log], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      await new Promise((r) => setTimeout(r, 600));
      appendFileSync(log, `${tools.slice(10).join('\n')}\n${doom.slice(0, 5).join('\n')}\n`);
      await waitFor(
        () =>
          receiver.spans.some(
            (s) => s.attributes['agent.run.id'] === '5b0c1a2e-1111-4a6b-8c7d-000000000001',
          ),
        10_000,
        'the first run',
      );
      // Rotation: the log is renamed and a new one is started; the rest of the old one is still read.
      appendFileSync(log, `${doom.slice(5, 10).join('\n')}\n`);
      renameSync(log, `${log}.1`);
      writeFileSync(log, `${doom.slice(10).join('\n')}\n${open.join('\n')}\n`);
      await waitFor(
        () =>
          receiver.spans.some(
            (s) => s.attributes['agent.run.id'] === '5b0c1a2e-2222-4a6b-8c7d-000000000002',
          ),
        10_000,
        'the run split across the rotation',
      );
      const result = await cli.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /runs {4}completed 1 {2}failed 1 {2}cancelled 0 {2}abandoned 1/,
      );
      const doomRun = receiver.spans.find(
        (s) => s.attributes['agent.run.id'] === '5b0c1a2e-2222-4a6b-8c7d-000000000002',
      );
      expect(doomRun?.attributes).toMatchObject({
        'agent.run.outcome': 'failed',
        'agent.run.iterations': 3,
        'error.type': 'doom_loop',
      });
      expect(doomRun?.attributes['agent.run.synthesized']).toBeUndefined();
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to follow stdin', async () => {
    const result = await runCli(['ingest', '--follow']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('agent-otel-bridge: --follow needs files, not stdin\n');
  });
});
