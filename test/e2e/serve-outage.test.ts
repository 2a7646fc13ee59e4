// serve never answers "accepted" for what it may not keep: while the collector refuses, requests
// are answered 503 with Retry-After, so a client that retries loses nothing; what was accepted
// before the outage was noticed is held and delivered once the collector is back. With worker
// threads, one worker's export in trouble is enough for the server to refuse.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toolRun } from '../helpers/behest-lines.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

describe.each([1, 2])('serve --workers %i through a collector outage', (workers) => {
  it('answers 503 with Retry-After while the collector refuses, and delivers every accepted run', async () => {
    const receiver = await startOtlpReceiver();
    const cli = startCli(['serve', '--port', '0', '--workers', String(workers)], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    });
    try {
      await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
      const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
      const post = async (lines: readonly string[]) =>
        fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: lines.join('\n'),
        });
      receiver.refusing = { status: 503 };
      const runs = Array.from({ length: 12 }, () => randomUUID());
      // The first run is accepted: nothing tells yet that the collector is refusing.
      expect((await post(toolRun(runs[0]))).status).toBe(200);
      await waitFor(() => receiver.refused > 0, 10_000, 'a refused export');
      // The exporter's own retries (within OTEL_EXPORTER_OTLP_TIMEOUT) end; then the bridge holds
      // the batch and retries it, and knows the collector is in trouble.
      await waitFor(
        async () => (await post(['{}'])).status === 503,
        10_000,
        'requests refused while the export is retried',
      );
      let refusedRequests = 0;
      let retryAfter: string | null = null;
      setTimeout(() => (receiver.refusing = undefined), 3000);
      // A client that retries on 503 after Retry-After.
      for (const runId of runs.slice(1)) {
        for (;;) {
          const response = await post(toolRun(runId));
          if (response.status === 200) break;
          expect(response.status).toBe(503);
          refusedRequests += 1;
          retryAfter = response.headers.get('retry-after');
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(refusedRequests).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      const traceIds = new Set(runs.map((r) => r.replaceAll('-', '')));
      await waitFor(
        () =>
          receiver.spans.filter((s) => s.name === 'invoke_agent' && traceIds.has(s.traceId))
            .length === runs.length,
        30_000,
        'every run at the receiver',
      );
      const result = await cli.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/delivered (\d+) of \1 spans/);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
    }
  }, 90_000);
});
