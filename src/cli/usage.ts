import { INPUT_DIALECTS } from '../events/dialect-name.js';

/** `agent-otel-bridge help`. */
export const USAGE = `Usage: agent-otel-bridge <command> [options]

Commands:
  ingest [FILE…]    Map NDJSON agent events from files or stdin ('-' or none) to OpenTelemetry
  demo              Generate realistic agent runs and send them through the same path
  validate FILE…    Check logs without exporting: per line dialect and outcome, then a summary
  crabtalk          Subscribe to a running crabtalk daemon's event feed and map it live
  nats              Consume a NATS JetStream subject (durable pull consumer, at-least-once)
  redis             Consume a Redis stream with a consumer group (at-least-once)
  route nats|redis  Republish the runtime's single stream by run to P partitions (for --partitions)
  serve             Accept events over HTTP: POST /v1/events (NDJSON or a JSON array)
  top [URL]         Watch the runs in progress of a running bridge (serve, or nats/redis
                    --status-port; default http://127.0.0.1:4320), refreshed in place
  help              Show this help

Options:
  --dialect NAME        Input dialect: ${INPUT_DIALECTS.join(' | ')} (default auto)
  --strict              ingest: exit 1 when any line was rejected
  --follow, -f          ingest: keep reading the files as they grow, across rotation, until SIGINT/SIGTERM
  --workers N           ingest, serve: map and export on N worker threads, each run on one (OTLP
                        output; default 1); nats/redis --partitions: N consumer processes on this machine,
                        each an instance holding partitions of its own
  --runs N              demo: how many runs to generate (default 6)
  --socket PATH         crabtalk: the daemon's unix socket (default ~/.crabtalk/run/crabtalk.sock)
  --tcp HOST:PORT       crabtalk: the daemon's TCP address instead of the socket
  --url URL             nats: default nats://127.0.0.1:4222; redis: default redis://127.0.0.1:6379
  --stream NAME         nats: the JetStream stream; redis: the stream key (required)
  --subject SUBJECT     nats: the subject behest publishes to (required)
  --durable NAME        nats: durable consumer, created when missing (default agent-otel-bridge)
  --ack-wait-ms N       nats: redelivery timeout of unacknowledged messages (default 30000)
  --max-ack-pending N   nats: max_ack_pending of a created consumer; both: most messages held (default 100000)
  --checkpoint-every N  nats/redis: a run holding N unacknowledged messages is checkpointed in the
                        broker and they are acknowledged, so long runs do not hold the rest (0: off;
                        default 1000)
  --group NAME          redis: consumer group, created when missing (default agent-otel-bridge)
  --field NAME          redis, route redis: the entry field holding the event (default event); an entry
                        without it is said, counted and left pending for inspection, never acknowledged
  --consumer NAME       redis: consumer name, keep it stable across restarts (default the host name)
  --claim-idle-ms N     redis: claim other consumers' entries idle this long at start (default 60000)
  --grace-ms N          nats/redis, route, serve, following ingest: longest graceful shutdown after SIGINT/SIGTERM,
                        then exit 3 (default 10000); crabtalk: longest final export (default 5000)
  --partitions P        route: partitions to republish to; nats/redis: consume the partitions this
                        instance holds leases on (<subject>.<p>, <key>:<p>), shared with other instances
  --partition-stream NAME  nats --partitions: the stream holding <subject>.<p> (default --stream)
  --lease-ms N          nats/redis --partitions: partition lease time; a dead instance's partitions
                        move after it; route nats: the routing lease (one router routes at a time,
                        a standby takes over after it) (default 10000)
  --instance-id ID      nats/redis --partitions: this instance's name (default host-pid)
  --end-open-runs-on-shutdown  nats/redis: end open runs as abandoned instead of leaving them for redelivery
  --allow-shared-consumer  nats/redis without --partitions: start even when another consumer reads the
                        same durable / group (each would see part of every run: see docs/scaling-out.md)
  --status-port N       nats/redis: serve GET /runs (the runs in progress) and /healthz on this port;
                        with --workers, worker k on N+k-1 (0: any free port, printed)
  --interval-ms N       top: refresh interval (default 1000)
  --once                top: print one frame and exit (also when stdout is not a terminal)
  --port N              serve: port (default 4320)
  --host ADDR           serve, --status-port: address to bind (default 127.0.0.1)
  --token-env NAME      serve, --status-port, top: require (top: send) 'Authorization: Bearer <token>', the token read
                        from env NAME (default AGENT_OTEL_BRIDGE_HTTP_TOKEN when set); required beyond loopback
  --allow-unauthenticated  serve, --status-port: bind beyond loopback without a token
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
  --prices FILE|off     Price model calls from this JSON price file before the bundled table
                        (docs/cost.md); off: no costs (env AGENT_OTEL_BRIDGE_PRICES)
  --sample-ratio R      Keep every failed, cancelled, abandoned, doom-looped or breaker-tripped run and
                        this share (0 to 1) of the rest, decided at each run's end (docs/sampling.md)
  --keep-slower-than-ms N  with --sample-ratio: also keep runs that lasted at least N ms
  --keep-tokens-above N    with --sample-ratio: also keep runs of at least N tokens
  --keep-cost-above USD    with --sample-ratio: also keep runs that cost at least USD dollars
  --quiet               Print only errors
  --json                ingest/demo: print the summary as one JSON object on stdout (no trace trees)
  --version, -V         Print the version (also: agent-otel-bridge version)

Export follows the standard environment: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL
(http/protobuf, http/json, grpc), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER (lists: otlp, console, none), OTEL_SDK_DISABLED,
OTEL_TRACES_SAMPLER (+ _ARG), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.`;

/** The flags of every command that makes spans: how runs are named, captured, priced and sampled. */
const SINK_FLAGS = [
  'agent-name',
  'capture-content',
  'prices',
  'sample-ratio',
  'keep-slower-than-ms',
  'keep-tokens-above',
  'keep-cost-above',
] as const;

/** The flags each command takes (besides --help and --version). */
export const COMMAND_OPTIONS = {
  ingest: [
    'dialect',
    'strict',
    'follow',
    'grace-ms',
    'workers',
    'output',
    ...SINK_FLAGS,
    'quiet',
    'json',
  ],
  demo: ['runs', 'output', ...SINK_FLAGS, 'quiet', 'json'],
  validate: ['dialect', 'quiet'],
  crabtalk: ['socket', 'tcp', 'grace-ms', 'output', ...SINK_FLAGS, 'quiet'],
  nats: [
    'url',
    'stream',
    'subject',
    'durable',
    'ack-wait-ms',
    'max-ack-pending',
    'checkpoint-every',
    'grace-ms',
    'end-open-runs-on-shutdown',
    'allow-shared-consumer',
    'partitions',
    'workers',
    'partition-stream',
    'lease-ms',
    'instance-id',
    'status-port',
    'host',
    'token-env',
    'allow-unauthenticated',
    'dialect',
    ...SINK_FLAGS,
    'quiet',
  ],
  redis: [
    'url',
    'stream',
    'field',
    'group',
    'consumer',
    'claim-idle-ms',
    'max-ack-pending',
    'checkpoint-every',
    'grace-ms',
    'end-open-runs-on-shutdown',
    'allow-shared-consumer',
    'partitions',
    'workers',
    'lease-ms',
    'instance-id',
    'status-port',
    'host',
    'token-env',
    'allow-unauthenticated',
    'dialect',
    ...SINK_FLAGS,
    'quiet',
  ],
  route: [
    'url',
    'stream',
    'field',
    'subject',
    'durable',
    'group',
    'consumer',
    'ack-wait-ms',
    'claim-idle-ms',
    'partitions',
    'lease-ms',
    'grace-ms',
    'quiet',
  ],
  serve: [
    'grace-ms',
    'port',
    'host',
    'token-env',
    'allow-unauthenticated',
    'max-body-bytes',
    'max-line-bytes',
    'max-requests-per-second',
    'prometheus-port',
    'workers',
    'tls-cert',
    'tls-key',
    'dialect',
    ...SINK_FLAGS,
    'quiet',
  ],
  top: ['interval-ms', 'once', 'token-env'],
} as const satisfies Record<string, readonly string[]>;

export type CommandName = keyof typeof COMMAND_OPTIONS;

export const isCommandName = (name: string): name is CommandName =>
  Object.hasOwn(COMMAND_OPTIONS, name);

/** `agent-otel-bridge <command> --help`: the command's line and its own options only. */
export function commandUsage(name: CommandName): string {
  const lines = USAGE.split('\n');
  const summary = lines.find((l) => new RegExp(`^ {2}${name}\\b`).test(l))?.trim() ?? name;
  const optionsAt = lines.indexOf('Options:');
  const endAt = lines.findIndex((l, i) => i > optionsAt && l === '');
  const allowed = new Set<string>([...COMMAND_OPTIONS[name], 'version']);
  const own: string[] = [];
  let keep = false;
  for (const line of lines.slice(optionsAt + 1, endAt)) {
    const flag = /^ {2}--([a-z-]+)/.exec(line)?.[1];
    if (flag !== undefined) keep = allowed.has(flag);
    if (keep) own.push(line);
  }
  const [synopsis, description] = summary.split(/\s{2,}/, 2);
  return [
    `Usage: agent-otel-bridge ${synopsis}`,
    '',
    ...(description === undefined ? [] : [description, '']),
    'Options:',
    ...own,
    '  --help, -h            Show this help',
    '',
    `All commands: agent-otel-bridge help. Exit codes: ${EXIT_CODES}.`,
  ].join('\n');
}

/** The CLI's exit codes, as the README's table says them. */
export const EXIT_CODES =
  '0 done (all delivered), 1 rejected input (validate; ingest --strict; ingest with every line rejected) or a failure, 2 usage error, 3 data not delivered, 130 ingest interrupted (what was read exported)';
