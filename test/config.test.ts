import { describe, expect, it } from 'vitest';
import { ConfigError, createAgentOtelSink, DEFAULTS, resolveConfig } from '../src/index.js';

describe('resolveConfig', () => {
  it('takes defaults from DEFAULTS', () => {
    const config = resolveConfig({}, {});
    expect(config).toMatchObject({
      agentName: undefined,
      captureContent: DEFAULTS.captureContent,
      maxContentBytes: 8192,
      idleTimeoutMillis: 1_800_000,
      maxOpenRuns: 10_000,
      dialect: 'auto',
    });
  });

  it('lets the environment override defaults and options override the environment', () => {
    const env = {
      AGENT_OTEL_BRIDGE_AGENT_NAME: 'from-env',
      AGENT_OTEL_BRIDGE_IDLE_TIMEOUT_MS: '5000',
      AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS: '7',
      AGENT_OTEL_BRIDGE_MAX_CONTENT_BYTES: '100',
      AGENT_OTEL_BRIDGE_DIALECT: 'behest',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      agentName: 'from-env',
      idleTimeoutMillis: 5000,
      maxOpenRuns: 7,
      maxContentBytes: 100,
      dialect: 'behest',
      captureContent: true,
    });
    expect(
      resolveConfig({ agentName: 'code', maxOpenRuns: 9, captureContent: false }, env),
    ).toMatchObject({ agentName: 'code', maxOpenRuns: 9, captureContent: false });
  });

  it('ignores a bad environment value and falls back', () => {
    expect(
      resolveConfig(
        {},
        {
          AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS: 'lots',
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'maybe',
        },
      ),
    ).toMatchObject({
      maxOpenRuns: 10_000,
      captureContent: false,
    });
  });

  it.each([
    [{ maxOpenRuns: 0 }, 'maxOpenRuns must be a positive integer, got 0'],
    [{ idleTimeoutMillis: 1.5 }, 'idleTimeoutMillis must be a positive integer, got 1.5'],
    [{ maxContentBytes: -1 }, 'maxContentBytes must be a positive integer, got -1'],
    [
      { dialect: 'klingon' as never },
      'dialect must be one of auto, behest, oxi, agent-sdk, crabtalk, got klingon',
    ],
    [{ scrubPatterns: ['sk-'] as never }, 'scrubPatterns must be regular expressions'],
  ])('throws ConfigError at construction for %j', (options, message) => {
    expect(() => createAgentOtelSink({ env: {}, ...options })).toThrow(new ConfigError(message));
  });
});
