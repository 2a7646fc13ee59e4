// Redis entries without the event field (another publisher, a wrong --field): said, counted as
// rejected and left pending for inspection — never acknowledged unread; --field reads them.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRedisKey, REDIS_URL, redisPending } from '../helpers/brokers.js';
import { runCli, startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';
import { toolRun } from '../helpers/behest-lines.js';

const RUN_OK = '0190f3a2-7c4e-4b8a-9d2e-00000000f001';
const RUN_ELSEWHERE = '0190f3a2-7c4e-4b8a-9d2e-00000000f002';

describe('redis entries without the event field', () => {
  let receiver: OtlpReceiver;
  const key = `aob-field-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    for (const line of toolRun(RUN_OK)) await client.xAdd(key, '*', { event: line });
    for (const line of toolRun(RUN_ELSEWHERE)) await client.xAdd(key, '*', { payload: line });
    await client.xAdd(key, '*', { note: 'not an event at all' });
    client.destroy();
  });
  afterAll(async () => {
    await receiver.close();
    await deleteRedisKey(key);
  });

  it('says each, counts it, leaves it pending; with --field the same entries are read', async () => {
    const wrong = toolRun(RUN_ELSEWHERE).length + 1;
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const first = startCli(['redis', '--url', REDIS_URL, '--stream', key, '--group', 'g1'], env);
    try {
      await first.waitForStderr(/has no field "event" \(it has "note"\)/, 15_000);
      await waitFor(
        () => receiver.spans.some((s) => s.attributes['agent.run.id'] === RUN_OK),
        15_000,
        'the run in the event field',
      );
      await waitFor(
        async () => (await redisPending(key, 'g1')) === wrong,
        15_000,
        `${wrong} pending`,
      );
      await waitFor(
        () =>
          receiver.metrics.some(
            (m) =>
              m.name === 'agent_bridge.events' &&
              m.points.some(
                (p) => p.attributes['agent_bridge.reason'] === 'missing_field' && p.value === wrong,
              ),
          ),
        15_000,
        `${wrong} rejections counted as missing_field`,
      );
    } finally {
      await first.stop('SIGTERM');
    }
    expect(first.stderr()).toContain('has no field "event" (it has "payload")');
    expect(receiver.spans.some((s) => s.attributes['agent.run.id'] === RUN_ELSEWHERE)).toBe(false);
    // Still there, unacknowledged, for inspection.
    expect(await redisPending(key, 'g1')).toBe(wrong);

    const second = startCli(
      ['redis', '--url', REDIS_URL, '--stream', key, '--group', 'g2', '--field', 'payload'],
      env,
    );
    try {
      await waitFor(
        () => receiver.spans.some((s) => s.attributes['agent.run.id'] === RUN_ELSEWHERE),
        15_000,
        'the run in the payload field',
      );
    } finally {
      await second.stop('SIGTERM');
    }
  });

  it('is refused where it cannot apply', async () => {
    const result = await runCli(['redis', '--stream', key, '--partitions', '4', '--field', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give it to route redis');
  });
});
