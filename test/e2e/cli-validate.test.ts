import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

describe('agent-otel-bridge validate', () => {
  it('accepts clean logs of all four dialects, with a summary per dialect and event type and the runs', async () => {
    const files = [
      'behest/tools-success-failure.ndjson',
      'oxi/agent-loop.ndjson',
      'agent-sdk/run.ndjson',
      'crabtalk/run.ndjson',
    ].map(fixture);
    const result = await runCli(['validate', ...files]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`${files[0]}:1  behest  accepted  RunStarted`);
    expect(lines).toContain(`${files[1]}:8  oxi  accepted  messageEnd`);
    expect(lines).toContain(`${files[2]}:4  agent-sdk  accepted  tool_call_end`);
    expect(lines).toContain(`${files[3]}:1  crabtalk  accepted  TextStart`);
    expect(result.stdout).toMatch(/^\d+ lines: (\d+) accepted, 0 not accepted$/m);
    for (const d of ['behest', 'oxi', 'agent-sdk', 'crabtalk'])
      expect(lines).toContain(`dialect ${d}`);
    expect(result.stdout).toMatch(/^ {2}ToolExecutionFinished {8}accepted 2$/m);
    expect(result.stdout).toContain('runs 14: completed 6, failed 5, cancelled 2, abandoned 1');
    // Runs without run ids are named after their content (a UUID), not after the file.
    expect(result.stdout).toMatch(
      /^ {2}[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} {2}cancelled {2}1 iteration {2}trace [0-9a-f]{32}$/m,
    );
    expect(result.stdout).not.toContain('#2');
    expect(result.stdout).toContain(
      '  5b0c1a2e-1111-4a6b-8c7d-000000000001  completed  2 iterations  trace 5b0c1a2e11114a6b8c7d000000000001',
    );
  });

  it('exits 1 and names line, field path and reason for every line not accepted', async () => {
    const result = await runCli(['validate', '--quiet', fixture('behest/garbage.ndjson')]);
    expect(result.code).toBe(1);
    const file = fixture('behest/garbage.ndjson');
    expect(result.stdout).toContain(
      `${file}:6  behest  rejected  ModelStarted  schema: ModelStarted.iteration: Invalid input: expected number, received string`,
    );
    expect(result.stdout).toContain(
      `${file}:9  behest  ignored  CacheMetrics  unknown_variant: unknown behest event CacheMetrics`,
    );
    expect(result.stdout).not.toContain('accepted  RunStarted');
    expect(result.stdout).toContain('12 lines: 3 accepted, 9 not accepted');
  });

  it('needs a file', async () => {
    const result = await runCli(['validate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agent-otel-bridge: validate needs at least one FILE (or - for stdin)\n',
    );
  });
});
