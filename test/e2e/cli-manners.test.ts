// What a person meets at the terminal: per-command help, usage errors that name the option and
// the help to read, a hint when --dialect is wrong, an unknown event type said once.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';

const sample = fileURLToPath(new URL('../../events/run.ndjson', import.meta.url));

describe('CLI manners', () => {
  it("prints a command's own help", async () => {
    const result = await runCli(['serve', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: agent-otel-bridge serve/);
    expect(result.stdout).toContain('--tls-cert');
    expect(result.stdout).not.toContain('--follow');
    expect(result.stdout).toContain('Exit codes: 0 done');
  });

  it('refuses an option of another command, naming the help to read', async () => {
    const result = await runCli(['ingest', '--port', '5', sample]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "--port is not an option of ingest; see 'agent-otel-bridge ingest --help'",
    );
  });

  // One thread, and worker threads (exporting nowhere: no collector needed).
  const threads = [
    ['one thread', ['--output', 'terminal'], {}],
    [
      '2 workers',
      ['--workers', '2', '--output', 'otlp'],
      { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' },
    ],
  ] as const;

  it.each(threads)(
    'says what to try when --dialect rejects nearly everything (%s)',
    async (_how, args, env) => {
      const result = await runCli(['ingest', ...args, '--dialect', 'oxi', sample], env);
      // Every line rejected: nothing was mapped, which is not a success.
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /(\d+) of \1 lines were rejected as oxi: is the input another runtime's\? Try --dialect auto/,
      );
    },
  );

  it.each(threads)(
    'says an unknown event type once, and counts every one (%s)',
    async (_how, args, env) => {
      const line = (t: string) =>
        JSON.stringify({ RunStrated: { run_id: 'r', timestamp: `2025-01-01T00:00:0${t}Z` } });
      const result = await runCli(['ingest', ...args], env, `${line('1')}\n${line('2')}\n`);
      expect(result.stderr.match(/ignored: unknown behest event RunStrated/g)).toHaveLength(1);
      expect(result.stdout).toMatch(/ignored 2\b/);
    },
  );

  it('prints the summary as one JSON object with --json', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(['ingest', '--json', sample], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      });
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout) as {
        command: string;
        lines: number;
        events: { accepted: number };
        runs: { completed: number };
        delivered: { spans: number; delivered: number };
      };
      expect(summary).toMatchObject({ command: 'ingest', events: { accepted: summary.lines } });
      expect(summary.runs.completed).toBeGreaterThan(0);
      expect(summary.delivered.delivered).toBe(receiver.spans.length);
      expect(summary.delivered.spans).toBe(receiver.spans.length);
    } finally {
      await receiver.close();
    }
  });
});

describe('OTEL_LOG_LEVEL', () => {
  const args = ['ingest', 'events/run.ndjson', '--output', 'terminal'];
  const cut = { AGENT_OTEL_BRIDGE_MAX_ATTRIBUTE_LENGTH: '10' };
  it("keeps the bridge's own warnings by default, silences them with none, adds the SDK's with debug", async () => {
    const plain = await runCli(args, cut);
    expect(plain.stderr).toContain('a text attribute was longer than 10 characters');
    expect(plain.stderr).not.toContain('debug:');
    const none = await runCli(args, { ...cut, OTEL_LOG_LEVEL: 'none' });
    expect(none.stderr).toBe('');
    const debug = await runCli(args, { ...cut, OTEL_LOG_LEVEL: 'debug' });
    expect(debug.stderr).toContain('a text attribute was longer than 10 characters');
    expect(debug.stderr).toMatch(/agent-otel-bridge: debug: .*Registered a global for diag/);
  });
});

describe('Ctrl-C on ingest', () => {
  it('stops reading, ends the open runs as abandoned, exports what was read, says so, exits 130', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/cli.js');
    const child = spawn(process.execPath, [CLI, 'ingest', '--output', 'terminal', '--json'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // A runtime still writing: runs started, none ended.
    let i = 0;
    const writer = setInterval(() => {
      for (let k = 0; k < 50; k += 1)
        child.stdin.write(
          `${JSON.stringify({ RunStarted: { run_id: `5b0c1a2e-1111-4a6b-8c7d-${String(i++).padStart(12, '0')}`, timestamp: '2025-06-01T12:00:00Z' } })}\n`,
        );
    }, 20);
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // More than a pipe's buffer written and drained: the bridge is reading (its handlers are set).
    await waitForLines(() => i >= 2000 && child.stdin.writableLength < 10_000);
    child.kill('SIGINT');
    const code = await exited;
    clearInterval(writer);
    expect(code).toBe(130);
    expect(stderr).toContain('interrupted: open runs end as abandoned');
    const summary = JSON.parse(stdout) as { lines: number; runs: { abandoned: number } };
    expect(summary.lines).toBeGreaterThan(0);
    expect(summary.runs.abandoned).toBe(summary.lines);
  });
});

async function waitForLines(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}
