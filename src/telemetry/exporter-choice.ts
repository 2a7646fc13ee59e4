import { diag } from '@opentelemetry/api';
import type { Env } from '../config.js';

export type ExporterName = 'otlp' | 'console' | 'none';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

const log = diag.createComponentLogger({ namespace: 'agent-otel-bridge' });

/** `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER`: the first supported name; default `otlp`. */
export function resolveExporterName(env: Env, variable: string): ExporterName {
  const names = (env[variable] ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  if (names.length === 0) return 'otlp';
  for (const name of names) {
    if (name === 'otlp' || name === 'console' || name === 'none') return name;
  }
  log.warn(
    `${variable}=${env[variable]} names no supported exporter (otlp, console, none); using otlp`,
  );
  return 'otlp';
}

/** The per-signal protocol variable wins over `OTEL_EXPORTER_OTLP_PROTOCOL`; default `http/protobuf`. */
export function resolveProtocol(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const raw = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
    env['OTEL_EXPORTER_OTLP_PROTOCOL'] ??
    ''
  ).trim();
  if (raw === '' || raw === 'http/protobuf') return 'http/protobuf';
  if (raw === 'http/json') return 'http/json';
  log.warn(`OTLP protocol ${raw} is not supported by agent-otel-bridge; using http/protobuf`);
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
  ].some((name) => (env[name] ?? '').trim() !== '');
}

/** Where traces go, in words, for messages (the exporter itself reads the env). */
export function describeTraceDestination(env: Env): string {
  const name = resolveExporterName(env, 'OTEL_TRACES_EXPORTER');
  if (name === 'none') return 'traces not exported (OTEL_TRACES_EXPORTER=none)';
  if (name === 'console') return 'traces to the console (OTEL_TRACES_EXPORTER=console)';
  return `OTLP ${resolveProtocol(env, 'TRACES')} → ${tracesEndpoint(env)}`;
}

/** Where the OTLP traces exporter sends to. */
export function tracesEndpoint(env: Env): string {
  const specific = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (specific) return specific;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
