import { diag } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { Env } from '../sink-options.js';

const log = diag.createComponentLogger({ namespace: 'agent-otel-bridge' });

/**
 * `OTEL_TRACES_SAMPLER` (and `OTEL_TRACES_SAMPLER_ARG` for the ratio) as the SDK environment
 * specification defines them: `always_on`, `always_off`, `traceidratio`, `parentbased_always_on`,
 * `parentbased_always_off`, `parentbased_traceidratio`. Undefined when unset (the SDK default,
 * parent-based always-on). A run's spans share its trace id, so a run is kept or dropped whole.
 */
export function samplerFromEnv(env: Env): Sampler | undefined {
  const name = (env['OTEL_TRACES_SAMPLER'] ?? '').trim().toLowerCase();
  if (name === '') return undefined;
  const ratio = () => {
    const raw = (env['OTEL_TRACES_SAMPLER_ARG'] ?? '').trim();
    const value = raw === '' ? 1 : Number(raw);
    if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
    log.warn(`OTEL_TRACES_SAMPLER_ARG=${raw} is not a ratio in [0, 1]; using 1`);
    return 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      log.warn(`OTEL_TRACES_SAMPLER=${name} is not supported; sampling every run`);
      return undefined;
  }
}
