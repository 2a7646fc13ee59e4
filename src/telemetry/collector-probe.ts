import { connect } from 'node:net';
import type { Env } from '../sink-options.js';
import { resolveExporterName, resolveProtocol, tracesEndpoint } from './exporter-choice.js';

/**
 * Whether anything listens where traces are sent: a TCP connection to the OTLP traces endpoint,
 * given up after `timeoutMillis`. Undefined when it connects (or traces do not go to OTLP), else
 * what went wrong, with the address, for a command to say at once rather than after the
 * exporter's own retries (about 9 s).
 */
export async function probeCollector(env: Env, timeoutMillis = 1500): Promise<string | undefined> {
  if (resolveExporterName(env, 'OTEL_TRACES_EXPORTER') !== 'otlp') return undefined;
  const endpoint = tracesEndpoint(env);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `the traces endpoint ${endpoint} is not a URL`;
  }
  const secure = url.protocol === 'https:';
  const grpc = resolveProtocol(env, 'TRACES') === 'grpc';
  const port = Number(url.port || (secure ? 443 : grpc ? 4317 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMillis, () =>
      done(`nothing answered at ${endpoint} within ${timeoutMillis} ms`),
    );
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(`nothing answers at ${endpoint} (${error.code ?? error.message})`),
    );
  });
}
