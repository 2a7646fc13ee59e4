// `nats --checkpoint-every 0` keeps no checkpoints, so it creates no key-value bucket for them on
// the user's server (real NATS JetStream); with checkpoints on, the bucket `<durable>-runs` is made.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  deleteNatsStream,
  natsStreamNames,
  publishToNats,
  natsConsumerArgs,
} from '../helpers/brokers.js';
import { usageRun } from '../helpers/behest-lines.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

describe('nats checkpoints off', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it.each([
    ['0', false],
    ['100', true],
  ])('--checkpoint-every %s: a checkpoint bucket made: %s', async (every, made) => {
    const tag = randomUUID().slice(0, 8);
    const stream = `AOB_NOCP_${tag}`;
    const subject = `agents.${tag}.events`;
    const durable = `nocp-${tag}`;
    const receiver = await startOtlpReceiver();
    cleanups.push(
      () => deleteNatsStream(stream),
      () => deleteNatsStream(`KV_${durable}-runs`),
      () => receiver.close(),
    );
    await publishToNats(
      stream,
      subject,
      usageRun('0190f3a2-7c4e-4b8a-9d2e-eeeeeeeeeeee', 'openai', 'gpt-4o-mini', [
        { input: 1, output: 1 },
      ]).split('\n'),
    );
    const cli = startCli(
      [...natsConsumerArgs(stream, subject, durable), '--checkpoint-every', every],
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
    );
    cleanups.push(() => cli.stop('SIGKILL'));
    await waitFor(
      () => receiver.spans.some((s) => s.name === 'invoke_agent'),
      15_000,
      'the run exported',
    );
    expect((await natsStreamNames()).includes(`KV_${durable}-runs`)).toBe(made);
    expect((await cli.stop('SIGTERM')).code).toBe(0);
  });
});
