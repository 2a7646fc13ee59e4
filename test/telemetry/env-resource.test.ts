// The resource read from the environment `startTelemetry` is given (env-resource.ts) held to the
// SDK's own detector, which reads `process.env`, as the oracle: on generated values of
// `OTEL_RESOURCE_ATTRIBUTES` (pairs with and without `=`, blank ones, spaces, commas, percent
// escapes valid and not, keys and values about the 255-character bound) and of
// `OTEL_SERVICE_NAME` (unset, blank, padded), both give the same attributes.
import fc from 'fast-check';
import { envDetector } from '@opentelemetry/resources';
import { afterEach, describe, expect, it } from 'vitest';
import { envResourceDetector } from '../../src/telemetry/env-resource.js';

const VARIABLES = ['OTEL_RESOURCE_ATTRIBUTES', 'OTEL_SERVICE_NAME'] as const;
const saved = Object.fromEntries(VARIABLES.map((v) => [v, process.env[v]]));

afterEach(() => {
  for (const v of VARIABLES)
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
});

/** What the SDK's detector makes of `env`, read from `process.env`. */
function sdkAttributes(env: Partial<Record<(typeof VARIABLES)[number], string>>) {
  for (const v of VARIABLES)
    if (env[v] === undefined) delete process.env[v];
    else process.env[v] = env[v];
  return envDetector.detect().attributes;
}

const piece = fc.oneof(
  fc.constantFrom('service.instance.id', 'deployment.environment', 'k', 'a.b-c_d', 'é', 'ü%20x'),
  fc.constantFrom(',', '=', ' ', '%', '%2C', '%3D', '%zz', '%E0%A4%A', '%C3%A9', '\t'),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: 250, max: 260 }).map((n) => 'x'.repeat(n)),
);
const raw = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
  // Mostly well formed: pairs, some of them blank or padded.
  fc
    .array(
      fc.oneof(
        fc.tuple(piece, piece).map(([k, v]) => `${k}=${v}`),
        fc.constantFrom('', ' ', '\t '),
      ),
      { maxLength: 5 },
    )
    .map((pairs) => pairs.join(',')),
);
const name = fc.option(fc.oneof(fc.constantFrom('', '  ', ' svc ', 'bridge'), fc.string()), {
  nil: undefined,
});

describe('the resource of a given environment', () => {
  it('has the attributes the SDK reads from process.env, on generated values', () => {
    fc.assert(
      fc.property(fc.option(raw, { nil: undefined }), name, (attributes, serviceName) => {
        const env = {
          ...(attributes === undefined ? {} : { OTEL_RESOURCE_ATTRIBUTES: attributes }),
          ...(serviceName === undefined ? {} : { OTEL_SERVICE_NAME: serviceName }),
        };
        expect(envResourceDetector(env).detect().attributes).toEqual(sdkAttributes(env));
      }),
      { numRuns: 2000 },
    );
  });

  it('is read from the environment given, not from process.env', () => {
    process.env['OTEL_RESOURCE_ATTRIBUTES'] = 'service.instance.id=from-process';
    process.env['OTEL_SERVICE_NAME'] = 'process-service';
    const env = { OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=bridge-a-w1,team=%C3%A9' };
    expect(envResourceDetector(env).detect().attributes).toEqual({
      'service.instance.id': 'bridge-a-w1',
      team: 'é',
    });
  });
});
