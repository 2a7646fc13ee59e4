import { INPUT_DIALECTS } from '../dialects/detect.js';

/** `agent-otel-bridge help`. */
export const USAGE = `Usage: agent-otel-bridge <command> [options]

Commands:
  ingest [FILE…]    Map NDJSON agent events from files or stdin ('-' or none) to OpenTelemetry
  demo              Generate realistic agent runs and send them through the same path
  validate FILE…    Check logs without exporting: per line dialect and outcome, then a summary
  crabtalk          Subscribe to a running crabtalk daemon's event feed and map it live
  nats              Consume a NATS JetStream subject (durable pull consumer, at-least-once)
  redis             Consume a Redis stream with a consumer group (at-least-once)
  serve             Accept events over HTTP: POST /v1/events (NDJSON or a JSON array)
  help              Show this help

Options:
  --dialect NAME        Input dialect: ${INPUT_DIALECTS.join(' | ')} (default auto)
  --strict              ingest: exit 1 when any line was rejected
  --follow, -f          ingest: keep reading the files as they grow, across rotation, until SIGINT/SIGTERM
  --runs N              demo: how many runs to generate (default 6)
  --socket PATH         crabtalk: the daemon's unix socket (default ~/.crabtalk/run/crabtalk.sock)
  --tcp HOST:PORT       crabtalk: the daemon's TCP address instead of the socket
  --url URL             nats: default nats://127.0.0.1:4222; redis: default redis://127.0.0.1:6379
  --stream NAME         nats: the JetStream stream; redis: the stream key (required)
  --subject SUBJECT     nats: the subject behest publishes to (required)
  --durable NAME        nats: durable consumer, created when missing (default agent-otel-bridge)
  --ack-wait-ms N       nats: redelivery timeout of unacknowledged messages (default 30000)
  --max-ack-pending N   nats: max_ack_pending of a created consumer; both: most messages held (default 20000)
  --group NAME          redis: consumer group, created when missing (default agent-otel-bridge)
  --consumer NAME       redis: consumer name, keep it stable across restarts (default the host name)
  --claim-idle-ms N     redis: claim other consumers' entries idle this long at start (default 60000)
  --grace-ms N          nats/redis: longest graceful shutdown (default 10000)
  --end-open-runs-on-shutdown  nats/redis: end open runs as abandoned instead of leaving them for redelivery
  --port N              serve: port (default 4320)
  --host ADDR           serve: address to bind (default 127.0.0.1)
  --token-env NAME      serve: require 'Authorization: Bearer <token>', the token read from env NAME
                        (default AGENT_OTEL_BRIDGE_HTTP_TOKEN when set); required beyond loopback
  --allow-unauthenticated  serve: bind beyond loopback without a token
  --max-body-bytes N    serve: largest request body (default 10485760)
  --max-line-bytes N    serve: largest line (default 1048576)
  --max-requests-per-second N  serve: per client address, bursts of twice that; beyond: 429 (default 1000)
  --prometheus-port N   serve: also expose the bridge's metrics for Prometheus on this port
  --tls-cert FILE       serve: HTTPS with this PEM certificate (with --tls-key)
  --tls-key FILE        serve: the certificate's PEM private key
  --output MODE         auto | otlp | terminal (default auto: OTLP when configured or a collector
                        listens on localhost:4318, else a trace tree in the terminal)
  --agent-name NAME     gen_ai.agent.name for every run
  --capture-content     Capture outputs and tool arguments/results (scrubbed, truncated)
  --quiet               Print only errors
  --version             Print the version

Export follows the standard environment: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL
(http/protobuf, http/json), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.`;
