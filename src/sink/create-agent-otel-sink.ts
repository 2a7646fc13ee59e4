import type { AgentOtelSink } from './agent-otel-sink.js';
import { createBridgeSink } from './bridge-sink.js';
import type { AgentOtelSinkOptions } from '../sink-options.js';

/** Creates the event sink. Registers nothing globally; throws `ConfigError` on bad options only. */
export function createAgentOtelSink(options: AgentOtelSinkOptions = {}): AgentOtelSink {
  const sink = createBridgeSink(options);
  // The public surface, and nothing of the sources' plumbing.
  return {
    handle: (event) => sink.handle(event),
    handleJson: (line, dialect) => sink.handleJson(line, dialect),
    openStream: (scope, dialect) => sink.openStream(scope, dialect),
    endOpenRuns: (reason) => sink.endOpenRuns(reason),
    stats: () => sink.stats(),
    flush: () => sink.flush(),
    shutdown: (shutdownOptions) => sink.shutdown(shutdownOptions),
  };
}
