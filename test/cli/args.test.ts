import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';

describe('parseCommand', () => {
  it('defaults ingest to stdin with auto dialect and auto output', () => {
    expect(parseCommand(['ingest'])).toEqual({
      name: 'ingest',
      files: ['-'],
      strict: false,
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

  it('answers help and version', () => {
    expect(parseCommand([])).toEqual({ name: 'help' });
    expect(parseCommand(['--version'])).toEqual({ name: 'version' });
  });
});
