import { hash } from 'node:crypto';

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const INVALID_TRACE_ID = '0'.repeat(32);
const INVALID_SPAN_ID = '0'.repeat(16);

/**
 * Trace id of a run: the UUID's 128 bits when the run id is a UUID (paste it without dashes
 * into a trace search), else the first 16 bytes of SHA-256 over `dialect + "\0" + runId`.
 */
export function toTraceId(dialect: string, runId: string): string {
  if (UUID.test(runId)) {
    const hex = runId.replaceAll('-', '').toLowerCase();
    if (hex !== INVALID_TRACE_ID) return hex;
  }
  return sha256Hex(`${dialect}\0${runId}`, 32, INVALID_TRACE_ID);
}

/**
 * Span id of one of a run's spans: the first 8 bytes of SHA-256 over
 * `traceId + "\0" + role`, where role is `run`, `iteration/<n>`, `chat/<n>` or `tool/<call id>`.
 */
export function toSpanId(traceId: string, role: string): string {
  return sha256Hex(`${traceId}\0${role}`, 16, INVALID_SPAN_ID);
}

function sha256Hex(input: string, hexLength: number, invalid: string): string {
  const hex = ownCopy(hash('sha256', input, 'hex'), hexLength);
  // An all-zero id is invalid in OpenTelemetry; it is astronomically unlikely, but never emit it.
  return hex === invalid ? `${hex.slice(0, -1)}1` : hex;
}

/**
 * The first `length` characters as a string of their own. A longer slice would be a view that
 * keeps the whole 64-character digest alive as long as the id lives (an open run's spans hold
 * their ids); pieces of up to 12 characters are copied, and joined.
 */
function ownCopy(text: string, length: number): string {
  let copy = '';
  for (let at = 0; at < length; at += 12) copy += text.substring(at, Math.min(at + 12, length));
  return copy;
}
