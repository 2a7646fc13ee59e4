// The OpenTelemetry API cannot choose span ids; the SDK asks its IdGenerator. The sink
// announces the ids it wants for the next span right before it starts it (synchronously),
// and this generator hands them out once; every other span gets random ids.
import { randomBytes } from 'node:crypto';

interface IdHint {
  traceId: string | undefined;
  spanId: string | undefined;
}

// Shared through a global symbol so that two copies of the package still agree.
const HINT_KEY = Symbol.for('agent-otel-bridge.id-hint');
const hint: IdHint = ((globalThis as Record<symbol, IdHint | undefined>)[HINT_KEY] ??= {
  traceId: undefined,
  spanId: undefined,
});

/** Runs `start` with the given ids offered to the generator, and withdraws them afterwards. */
export function withIdHint<T>(traceId: string | undefined, spanId: string, start: () => T): T {
  hint.traceId = traceId;
  hint.spanId = spanId;
  try {
    return start();
  } finally {
    hint.traceId = undefined;
    hint.spanId = undefined;
  }
}

/**
 * An SDK `IdGenerator` (structurally: `generateTraceId`, `generateSpanId`) that gives the spans
 * the bridge starts their deterministic ids and everything else random ones. Pass it to
 * `new NodeSDK({ idGenerator })` or `new TracerProvider({ idGenerator })`.
 */
export class AgentRunIdGenerator {
  generateTraceId(): string {
    const id = hint.traceId;
    if (id !== undefined) {
      hint.traceId = undefined;
      return id;
    }
    return randomBytes(16).toString('hex');
  }

  generateSpanId(): string {
    const id = hint.spanId;
    if (id !== undefined) {
      hint.spanId = undefined;
      return id;
    }
    return randomBytes(8).toString('hex');
  }
}
