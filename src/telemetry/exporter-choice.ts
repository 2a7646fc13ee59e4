import { diag } from '@opentelemetry/api';
import type { Env } from '../sink-options.js';

export type ExporterName = 'otlp' | 'console' | 'none';
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

const log = diag.createComponentLogger({ namespace: 'agent-otel-bridge' });

/**
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` as the SDK environment specification reads
 * them: a comma-separated list, every supported name used (`otlp`, `console`), `none` alone for
 * no exporter, unsupported names warned about and skipped; unset: `otlp`. With
 * `OTEL_SDK_DISABLED=true`, none.
 */
export function resolveExporterNames(env: Env, variable: string): readonly ExporterName[] {
  if (isSdkDisabled(env)) return [];
  const raw = (env[variable] ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  if (raw.length === 0) return ['otlp'];
  const names = [...new Set(raw)].filter((n): n is 'otlp' | 'console' => {
    if (n === 'otlp' || n === 'console') return true;
    if (n !== 'none') log.warn(`${variable}: exporter ${n} is not supported (otlp, console, none)`);
    return false;
  });
  if (names.length === 0 && !raw.includes('none')) {
    log.warn(`${variable}=${env[variable]} names no supported exporter; using otlp`);
    return ['otlp'];
  }
  return names;
}

/** The one exporter a message names: `otlp` when it is among them, else the first, else `none`. */
export function resolveExporterName(env: Env, variable: string): ExporterName {
  const names = resolveExporterNames(env, variable);
  return names.includes('otlp') ? 'otlp' : (names[0] ?? 'none');
}

/** `OTEL_SDK_DISABLED=true`: no telemetry leaves the process. */
export function isSdkDisabled(env: Env): boolean {
  return (env['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true';
}

/** The per-signal protocol variable wins over `OTEL_EXPORTER_OTLP_PROTOCOL`; default `http/protobuf`. */
export function resolveProtocol(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const raw = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
    env['OTEL_EXPORTER_OTLP_PROTOCOL'] ??
    ''
  ).trim();
  if (raw === '' || raw === 'http/protobuf') return 'http/protobuf';
  if (raw === 'http/json' || raw === 'grpc') return raw;
  log.warn(
    `OTLP protocol ${raw} is not supported (grpc, http/protobuf, http/json); using http/protobuf`,
  );
  return 'http/protobuf';
}

/** Whether the environment says anything about where telemetry goes. */
export function isExportConfigured(env: Env): boolean {
  return [
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    'OTEL_TRACES_EXPORTER',
    'OTEL_METRICS_EXPORTER',
    'OTEL_SDK_DISABLED',
    'AGENT_OTEL_BRIDGE_DESTINATIONS',
  ].some((name) => (env[name] ?? '').trim() !== '');
}

/** Where traces go, in words, for messages (the exporter itself reads the env). */
export function describeTraceDestination(env: Env): string {
  if (isSdkDisabled(env)) return 'telemetry disabled (OTEL_SDK_DISABLED=true)';
  const name = resolveExporterName(env, 'OTEL_TRACES_EXPORTER');
  if (name === 'none') return 'traces not exported (OTEL_TRACES_EXPORTER=none)';
  if (name === 'console') return 'traces to the console (OTEL_TRACES_EXPORTER=console)';
  return `OTLP ${resolveProtocol(env, 'TRACES')} → ${tracesEndpoint(env)}`;
}

/** Where the OTLP traces exporter sends to. */
export function tracesEndpoint(env: Env): string {
  const specific = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (specific) return specific;
  const grpc = resolveProtocol(env, 'TRACES') === 'grpc';
  const base =
    env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() ||
    (grpc ? 'http://localhost:4317' : 'http://localhost:4318');
  // gRPC names the service, not a path.
  return grpc ? base : `${base.replace(/\/+$/, '')}/v1/traces`;
}
