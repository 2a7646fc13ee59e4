// The public API is an explicit list: the package's exports and the sink's methods, nothing of
// the CLI's plumbing.
import { expect, it } from 'vitest';
import * as api from '../src/index.js';

it('exports what the README documents, and the sink has only its public methods', () => {
  const sink = api.createAgentOtelSink({ env: {} });
  expect(Object.keys(sink).sort()).toEqual([
    'endOpenRuns',
    'flush',
    'handle',
    'handleJson',
    'openStream',
    'shutdown',
    'stats',
  ]);
  expect(Object.keys(api)).toContain('createAgentOtelSink');
  expect(Object.keys(api)).not.toContain('createBridgeSink');
});
