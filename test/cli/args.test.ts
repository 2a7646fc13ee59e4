import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';
import { COMMAND_OPTIONS, commandUsage } from '../../src/cli/usage.js';

describe('parseCommand', () => {
  it('defaults ingest to stdin with auto dialect and auto output', () => {
    expect(parseCommand(['ingest'])).toEqual({
      name: 'ingest',
      files: ['-'],
      strict: false,
      follow: false,
      workers: 1,
      graceMillis: 10_000,
      common: {
        dialect: 'auto',
        output: 'auto',
        agentName: undefined,
        captureContent: undefined,
        prices: undefined,
        samplingEnv: {},
        quiet: false,
        json: false,
      },
    });
  });

  it('reads the pricing and sampling flags, the latter as the environment the export reads', () => {
    const command = parseCommand([
      'ingest',
      '--prices',
      'off',
      '--sample-ratio',
      '0.1',
      '--keep-slower-than-ms',
      '60000',
      '--keep-tokens-above',
      '100000',
      '--keep-cost-above',
      '0.5',
    ]);
    expect(command.name === 'ingest' && command.common).toMatchObject({
      prices: 'off',
      samplingEnv: {
        AGENT_OTEL_BRIDGE_SAMPLE_RATIO: '0.1',
        AGENT_OTEL_BRIDGE_KEEP_SLOWER_THAN_MS: '60000',
        AGENT_OTEL_BRIDGE_KEEP_TOKENS_ABOVE: '100000',
        AGENT_OTEL_BRIDGE_KEEP_COST_ABOVE_USD: '0.5',
      },
    });
  });

  it('reads ingest flags and files', () => {
    expect(
      parseCommand([
        'ingest',
        '--strict',
        '--dialect',
        'behest',
        '--agent-name',
        'bot',
        '--capture-content',
        'a.ndjson',
        '-',
      ]),
    ).toMatchObject({
      files: ['a.ndjson', '-'],
      strict: true,
      common: { dialect: 'behest', agentName: 'bot', captureContent: true },
    });
  });

  it.each([
    [
      ['ingest', '--dialect', 'x'],
      '--dialect must be one of auto, behest, oxi, agent-sdk, crabtalk, got x',
    ],
    [['demo', '--runs', '0'], '--runs must be a positive integer, got 0'],
    [['demo', 'extra'], 'demo takes no arguments, got extra'],
    [['ingest', '--output', 'file'], '--output must be auto, otlp or terminal, got file'],
    [['frobnicate'], "unknown command frobnicate; try 'agent-otel-bridge help'"],
    [['ingest', '--nope'], 'unknown option --nope'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('reads the nats, redis and serve options with their defaults', () => {
    expect(parseCommand(['nats', '--stream', 'S', '--subject', 'a.b'])).toMatchObject({
      nats: {
        url: 'nats://127.0.0.1:4222',
        durable: 'agent-otel-bridge',
        ackWaitMillis: 30_000,
        maxAckPending: 100_000,
      },
      consume: {
        scope: 'a.b',
        maxPending: 100_000,
        endOpenRunsOnShutdown: false,
        graceMillis: 10_000,
        checkpointEvery: 1000,
        partitioned: false,
      },
    });
    expect(
      parseCommand(['redis', '--stream', 'k', '--checkpoint-every', '0', '--partitions', '4']),
    ).toMatchObject({ consume: { checkpointEvery: 0, partitioned: true } });
    expect(() => parseCommand(['redis', '--stream', 'k', '--checkpoint-every=-1'])).toThrow(
      '--checkpoint-every must be a non-negative integer, got -1',
    );
    expect(parseCommand(['redis', '--stream', 'k', '--consumer', 'c1'])).toMatchObject({
      redis: {
        url: 'redis://127.0.0.1:6379',
        stream: 'k',
        group: 'agent-otel-bridge',
        consumer: 'c1',
        claimIdleMillis: 60_000,
      },
    });
    expect(parseCommand(['serve'], { AGENT_OTEL_BRIDGE_HTTP_TOKEN: 't0k' })).toMatchObject({
      serve: {
        host: '127.0.0.1',
        port: 4320,
        token: 't0k',
        maxBodyBytes: 10_485_760,
        maxLineBytes: 1_048_576,
        prometheusPort: undefined,
      },
    });
    expect(() => parseCommand(['nats', '--stream', 'S'])).toThrow('nats needs --subject');
    expect(() => parseCommand(['serve', '--token-env', 'NOPE'])).toThrow(
      '--token-env NOPE: that variable is not set',
    );
    expect(parseCommand(['serve', '--host', '0.0.0.0', '--allow-unauthenticated'])).toMatchObject({
      serve: { host: '0.0.0.0', token: undefined },
    });
  });

  it('takes --grace-ms for serve and ingest --follow, not for a finite ingest', () => {
    expect(parseCommand(['serve', '--grace-ms', '3000'])).toMatchObject({
      serve: { graceMillis: 3000 },
    });
    expect(parseCommand(['ingest', '--follow', 'a.log', '--grace-ms', '2000'])).toMatchObject({
      graceMillis: 2000,
    });
    expect(() => parseCommand(['ingest', 'a.log', '--grace-ms', '2000'])).toThrow(
      '--grace-ms is for ingest --follow',
    );
  });

  it('takes top with a URL, --once and --interval-ms', () => {
    expect(parseCommand(['top'])).toEqual({
      name: 'top',
      top: { url: 'http://127.0.0.1:4320', token: undefined, intervalMillis: 1000, once: false },
    });
    expect(parseCommand(['top', 'http://h:1', '--once', '--interval-ms', '250'])).toMatchObject({
      top: { url: 'http://h:1', once: true, intervalMillis: 250 },
    });
    expect(() => parseCommand(['top', 'h:1'])).toThrow('must start with http://');
  });

  it('answers help and version', () => {
    expect(parseCommand([])).toEqual({ name: 'help' });
    expect(parseCommand(['--version'])).toEqual({ name: 'version' });
  });

  it('reads partitioned consumption and the router', () => {
    expect(
      parseCommand([
        'nats',
        '--stream',
        'S',
        '--subject',
        'behest.events',
        '--partitions',
        '12',
        '--partition-stream',
        'P',
        '--lease-ms',
        '3000',
        '--instance-id',
        'a',
      ]),
    ).toMatchObject({
      name: 'nats',
      partitions: { partitions: 12, partitionStream: 'P', leaseMillis: 3000, instanceId: 'a' },
    });
    expect(parseCommand(['redis', '--stream', 'k'])).toMatchObject({ partitions: undefined });
    expect(
      parseCommand(['route', 'redis', '--stream', 'behest:events', '--partitions', '4']),
    ).toMatchObject({
      name: 'route',
      broker: 'redis',
      graceMillis: 10_000,
      router: { source: 'behest:events', partitions: 4, group: 'agent-otel-bridge-router' },
    });
    expect(
      parseCommand(['route', 'redis', '--stream', 's', '--partitions', '2', '--grace-ms', '2500']),
    ).toMatchObject({ graceMillis: 2500 });
    expect(() => parseCommand(['route', 'kafka', '--stream', 's', '--partitions', '2'])).toThrow(
      /route nats\|redis/,
    );
    expect(() => parseCommand(['route', 'nats', '--stream', 's', '--partitions', '2'])).toThrow(
      /--subject/,
    );
    expect(() => parseCommand(['route', 'redis', '--stream', 's'])).toThrow(/--partitions/);
    expect(() => parseCommand(['redis', '--stream', 's', '--partitions', '0'])).toThrow(
      /positive integer/,
    );
  });

  it('gives each command its own help and refuses the flags of other commands', () => {
    expect(parseCommand(['ingest', '--help'])).toEqual({ name: 'help', command: 'ingest' });
    expect(parseCommand(['help', 'serve'])).toEqual({ name: 'help', command: 'serve' });
    expect(() => parseCommand(['ingest', '--port', '5'])).toThrow(
      "--port is not an option of ingest; see 'agent-otel-bridge ingest --help'",
    );
    expect(() => parseCommand(['serve', '--follow'])).toThrow(/--follow is not an option of serve/);
    expect(() => parseCommand(['ingest', '--nope'])).toThrow(
      "unknown option --nope; see 'agent-otel-bridge ingest --help'",
    );
    expect(() => parseCommand(['serve', '--port'])).toThrow(
      "--port needs a value; see 'agent-otel-bridge serve --help'",
    );
  });

  it("lists in a command's help exactly the options it takes", () => {
    for (const [name, flags] of Object.entries(COMMAND_OPTIONS)) {
      const help = commandUsage(name as keyof typeof COMMAND_OPTIONS);
      const listed = [...help.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]);
      expect(listed.sort()).toEqual([...flags, 'version', 'help'].sort());
      expect(help).toContain(`Usage: agent-otel-bridge ${name}`);
    }
  });
});
