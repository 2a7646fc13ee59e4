import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { agentEventFrame, frameOf, KIND, startCrabtalkDaemon } from '../helpers/crabtalk-daemon.js';
import type { AgentEventMsg } from '../helpers/crabtalk-daemon.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

const SUBSCRIBE = Buffer.from([0, 0, 0, 3, 0x92, 0x02, 0x00]);

function conversation(agent: string, sender: string, second: number): Buffer[] {
  const at = (ms: number) =>
    `2025-06-01T12:00:${String(second).padStart(2, '0')}.${String(ms).padStart(3, '0')}000000+00:00`;
  const msgs: AgentEventMsg[] = [
    { agent, sender, kind: KIND.TEXT_START, timestamp: at(0) },
    { agent, sender, kind: KIND.TEXT_DELTA, content: 'Let me look.', timestamp: at(100) },
    { agent, sender, kind: KIND.TEXT_END, timestamp: at(150) },
    {
      agent,
      sender,
      kind: KIND.TOOL_START,
      content: 'bash',
      toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }],
      timestamp: at(200),
    },
    {
      agent,
      sender,
      kind: KIND.TOOL_RESULT,
      content: '37ms',
      toolOutput: 'main.rs',
      timestamp: at(237),
    },
    { agent, sender, kind: KIND.TOOLS_COMPLETE, timestamp: at(240) },
    { agent, sender, kind: KIND.TEXT_DELTA, content: 'Two files.', timestamp: at(500) },
    { agent, sender, kind: KIND.DONE, content: 'prompt 900, completion 60', timestamp: at(900) },
  ];
  return msgs.map(agentEventFrame);
}

describe('crabtalk daemon feed over a unix socket', () => {
  let receiver: OtlpReceiver;
  let dir: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dir = mkdtempSync(join(tmpdir(), 'crabtalk-'));
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with --output auto and no collector, draws the trace trees when it stops', async () => {
    const socketPath = join(dir, 'auto.sock');
    const daemon = await startCrabtalkDaemon({ socket: socketPath });
    // Nothing configured: auto looks for a collector on localhost:4318, and finds none here.
    const cli = startCli(['crabtalk', '--socket', socketPath, '--output', 'auto']);
    try {
      await cli.waitForStderr(
        /no collector at http:\/\/localhost:4318; trace trees are drawn when it stops/,
      );
      const subscriber = await daemon.nextSubscriber();
      for (const f of conversation('coder', '9', 3)) subscriber.write(f);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const result = await cli.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^invoke_agent .* completed/m);
      expect(result.stdout).toContain('export  terminal (no collector at http://localhost:4318)');
      expect(receiver.spans.some((s) => s.attributes['gen_ai.conversation.id'] === '9')).toBe(
        false,
      );
    } finally {
      await cli.stop('SIGKILL').catch(() => undefined);
      await daemon.stop();
    }
  });

  it('subscribes, maps conversations live, skips a malformed frame, survives a daemon restart and an oversize frame', async () => {
    const socketPath = join(dir, 'crabtalk.sock');
    const daemon = await startCrabtalkDaemon({ socket: socketPath });
    const cli = startCli(['crabtalk', '--socket', socketPath], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    try {
      let subscriber = await daemon.nextSubscriber();
      expect(daemon.requests[0]).toEqual(SUBSCRIBE);
      for (const f of conversation('coder', '7', 1)) subscriber.write(f);
      subscriber.write(frameOf(Buffer.from([0xff, 0xff, 0xff])));
      await cli.waitForStderr(/frame 9 is malformed/);

      await daemon.stop();
      await cli.waitForStderr(/connection to .* closed; reconnecting/);
      await daemon.restart();
      subscriber = await daemon.nextSubscriber();
      for (const f of conversation('coder', '8', 2)) subscriber.write(f);

      const oversize = Buffer.alloc(4);
      oversize.writeUInt32BE(0xffffffff, 0);
      subscriber.write(oversize);
      await cli.waitForStderr(/exceeds the 16777216-byte limit; closing the connection/);
      subscriber = await daemon.nextSubscriber();
      expect(daemon.requests).toHaveLength(3);

      const result = await cli.stop('SIGTERM');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/runs {4}completed 2 {2}failed 0/);
      const runs = receiver.spans.filter((s) => s.name === 'invoke_agent');
      expect(
        runs
          .map((r) => [r.attributes['gen_ai.conversation.id'], r.attributes['crabtalk.agent']])
          .sort(),
      ).toEqual([
        ['7', 'coder'],
        ['8', 'coder'],
      ]);
      // Named after the daemon's own facts (conversation, first event time, content): a UUID
      // whose 128 bits are the trace id, the same whichever bridge process reads the feed.
      for (const r of runs)
        expect(String(r.attributes['agent.run.id']).replaceAll('-', '')).toBe(r.traceId);
      expect(new Set(runs.map((r) => r.traceId)).size).toBe(2);
      const tools = receiver.spans.filter((s) => s.name === 'execute_tool bash');
      expect(
        tools.map((t) => [
          t.startTimeUnixNano,
          t.endTimeUnixNano,
          t.attributes['agent.tool.outcome'],
        ]),
      ).toContainEqual(['1748779201200000000', '1748779201237000000', 'success']);
      expect(receiver.spans.filter((s) => s.name === 'agent.iteration')).toHaveLength(4);
    } finally {
      await cli.stop('SIGKILL').catch(() => undefined);
      await daemon.stop().catch(() => undefined);
    }
  });
});

describe('crabtalk daemon feed over TCP', () => {
  it('maps a conversation from a TCP daemon and reconnects while it is down', async () => {
    const receiver = await startOtlpReceiver();
    const daemon = await startCrabtalkDaemon({ tcp: true });
    const address = daemon.address as { host: string; port: number };
    const cli = startCli(['crabtalk', '--tcp', `${address.host}:${address.port}`], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    try {
      const subscriber = await daemon.nextSubscriber();
      for (const f of conversation('ops', '1', 3)) subscriber.write(f);
      await daemon.stop();
      await cli.waitForStderr(/reconnecting in/);
      await cli.waitForStderr(/ECONNREFUSED/);
      const result = await cli.stop('SIGINT');
      expect(result.code).toBe(0);
      const run = receiver.spans.find((s) => s.name === 'invoke_agent');
      expect(run?.attributes['agent.run.outcome']).toBe('completed');
      expect(run?.startTimeUnixNano).toBe('1748779203000000000');
    } finally {
      await receiver.close();
    }
  });
});

describe('crabtalk shutdown', () => {
  it('stops within --grace-ms when the collector does not answer, and says what was not delivered', async () => {
    const daemon = await startCrabtalkDaemon({ tcp: true });
    const address = daemon.address as { host: string; port: number };
    const deadCollector = `http://127.0.0.1:${await freePort()}`;
    const cli = startCli(
      ['crabtalk', '--tcp', `${address.host}:${address.port}`, '--grace-ms', '1000'],
      { OTEL_EXPORTER_OTLP_ENDPOINT: deadCollector, OTEL_BSP_SCHEDULE_DELAY: '60000' },
    );
    try {
      const subscriber = await daemon.nextSubscriber();
      for (const f of conversation('ops', '1', 3)) subscriber.write(f);
      await cli.waitForStderr(/connected|subscribed/i).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
      const signalled = Date.now();
      const result = await cli.stop('SIGINT');
      // Before, the final export waited on the exporter's own timeouts (15 s and more).
      expect(Date.now() - signalled).toBeLessThan(5000);
      expect(result.stderr).toContain('the final export took longer than 1000 ms');
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(/delivered 0 of [1-9]\d* spans/);
    } finally {
      await cli.stop('SIGKILL');
      await daemon.stop().catch(() => undefined);
    }
  });
});
