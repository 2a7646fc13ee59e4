// A broker that cannot be reached when a command starts is said, naming its URL, and the command
// exits 1 (README's exit codes): never a silent wait that outlives SIGTERM. A broker that comes
// up within the first few seconds (restarting as the bridge starts) is waited for.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { startRedisServer } from '../helpers/private-broker.js';

/** A loopback port nothing listens on (taken from the system, then let go). */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The command's exit, or a failure saying it still runs after `millis` (a hang). */
async function exitWithin(args: string[], millis: number) {
  const cli = startCli(args);
  const timer = new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), millis));
  const outcome = await Promise.race([cli.exited, timer]);
  if (outcome === 'hang') {
    const result = await cli.stop('SIGKILL');
    throw new Error(`still running after ${millis} ms; stderr:\n${result.stderr}`);
  }
  return outcome;
}

describe('a broker that cannot be reached at start', () => {
  const cases: [string, (url: string) => string[], string][] = [
    ['nats', (u) => ['nats', '--url', u, '--stream', 'S', '--subject', 's'], 'nats'],
    [
      'nats --partitions',
      (u) => ['nats', '--url', u, '--stream', 'S', '--subject', 's', '--partitions', '4'],
      'nats',
    ],
    [
      'route nats',
      (u) => ['route', 'nats', '--url', u, '--stream', 'S', '--subject', 's', '--partitions', '4'],
      'nats',
    ],
    ['redis', (u) => ['redis', '--url', u, '--stream', 'k'], 'redis'],
    [
      'redis --partitions',
      (u) => ['redis', '--url', u, '--stream', 'k', '--partitions', '4'],
      'redis',
    ],
    [
      'route redis',
      (u) => ['route', 'redis', '--url', u, '--stream', 'k', '--partitions', '4'],
      'redis',
    ],
  ];
  it.each(cases)(
    '%s: says so with the URL and exits 1',
    async (_, args, scheme) => {
      const url = `${scheme}://127.0.0.1:${await refusingPort()}`;
      // Generous: the first connection is tried for 5 s; a hang never ends.
      const result = await exitWithin(args(url), 30_000);
      expect(result.stderr).toContain(
        `cannot reach ${scheme === 'nats' ? 'NATS' : 'Redis'} at ${url}`,
      );
      expect(result.code).toBe(1);
    },
    40_000,
  );

  it('waits for a Redis that comes up within the first seconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'late-redis-'));
    const broker = await startRedisServer(dir);
    const receiver = await startOtlpReceiver();
    try {
      await broker.kill();
      const cli = startCli(['redis', '--url', broker.url, '--stream', 'late', '--group', 'g'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await broker.restart();
      await cli.waitForStderr(/^consuming redis:/m, 15_000);
      const result = await cli.stop('SIGTERM');
      expect(result.stderr).not.toContain('cannot reach');
      expect(result.code).toBe(0);
    } finally {
      await broker.stop();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
