// A short-lived host (a job, a serverless handler) as the README's recipe has it: the built
// package, providers from `agent-otel-bridge/telemetry`, the NDJSON lines on its standard input
// handled, `await sink.flush()`, then an immediate exit. Exporters read OTEL_EXPORTER_OTLP_*.
import { text } from 'node:stream/consumers';
import { createAgentOtelSink } from '../../dist/index.js';
import { startTelemetry } from '../../dist/telemetry/index.js';

const lines = (await text(process.stdin)).split('\n').filter((line) => line !== '');

const telemetry = startTelemetry();
const sink = createAgentOtelSink({
  tracerProvider: telemetry.tracerProvider,
  meterProvider: telemetry.meterProvider,
});
for (const line of lines) {
  const result = sink.handleJson(line);
  if (result.outcome !== 'accepted') {
    console.error(`not accepted: ${JSON.stringify(result)}`);
    process.exit(1);
  }
}
await sink.flush();
process.exit(0);
