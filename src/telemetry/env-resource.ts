// The resource that `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME` describe, read from the
// environment given to `startTelemetry` rather than from `process.env` (which the SDK's own
// detector reads): each share of `ingest --workers` exports as an instance of its own, the one on
// the main thread included. Parsed as the SDK parses them (a property test holds the two to the
// same attributes): comma-separated `key=value` pairs, percent-decoded, and a value of which any
// pair does not parse dropped whole, as the specification asks.
import { diag } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import type { DetectedResource, ResourceDetector } from '@opentelemetry/resources';

type Env = Readonly<Record<string, string | undefined>>;

/** The SDK's bound on a key's and a value's length, decoded. */
const MAX_LENGTH = 255;

/** A variable's value as the SDK reads one: unset where empty or blank, else untrimmed. */
function stringOf(env: Env, key: string): string | undefined {
  const value = env[key];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** `OTEL_RESOURCE_ATTRIBUTES`' pairs; throws at the first that does not parse. */
export function parseResourceAttributes(raw: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const parts = pair.split('=');
    if (parts.length !== 2) throw new Error(`"${pair}" is not key=value`);
    if (parts[0]!.trim() === '') throw new Error(`"${pair}" has no key`);
    const key = decodeURIComponent(parts[0]!.trim());
    const value = decodeURIComponent(parts[1]!.trim());
    if (key.length > MAX_LENGTH || value.length > MAX_LENGTH)
      throw new Error(`"${pair}" is longer than ${MAX_LENGTH} characters`);
    attributes[key] = value;
  }
  return attributes;
}

/** A detector of the resource `env` describes. */
export function envResourceDetector(env: Env): ResourceDetector {
  return {
    detect(): DetectedResource {
      const attributes: Attributes = {};
      const raw = stringOf(env, 'OTEL_RESOURCE_ATTRIBUTES');
      if (raw !== undefined)
        try {
          Object.assign(attributes, parseResourceAttributes(raw));
        } catch (error) {
          diag.debug(`OTEL_RESOURCE_ATTRIBUTES ignored: ${String(error)}`);
        }
      const serviceName = stringOf(env, 'OTEL_SERVICE_NAME');
      if (serviceName !== undefined) attributes['service.name'] = serviceName;
      return { attributes };
    },
  };
}
