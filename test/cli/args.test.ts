import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';

describe('parseCommand', () => {
  it('defaults ingest to stdin with auto dialect and auto output', () => {
    expect(parseCommand(['ingest'])).toEqual({
      name: 'ingest',
      files: ['-'],
      strict: false,
      follow: false,
      common: {
        dialect: 'auto',
        output: 'auto',
        agentName: undefined,
        captureContent: undefined,
        quiet: false,
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
    [['ingest', '--nope'], "Unknown option '--nope'"],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('reads the nats, redis and serve options with their defaults', () => {
    expect(parseCommand(['nats', '--stream', 'S', '--subject', 'a.b'])).toMatchObject({
      nats: {
        url: 'nats://127.0.0.1:4222',
        durable: 'agent-otel-bridge',
        ackWaitMillis: 30_000,
        maxAckPending: 20_000,
      },
      consume: {
        scope: 'a.b',
        maxPending: 20_000,
        endOpenRunsOnShutdown: false,
        graceMillis: 10_000,
      },
    });
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

  it('answers help and version', () => {
    expect(parseCommand([])).toEqual({ name: 'help' });
    expect(parseCommand(['--version'])).toEqual({ name: 'version' });
  });
});
