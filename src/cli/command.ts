// What a command is given: the parsed command line and the process's streams. Every command and
// the argument parser stand on this file; it imports none of them.
import type { Writable } from 'node:stream';
import type { InputDialect } from '../events/dialect-name.js';
import type { RouterOptions } from '../partitions/router.js';
import type { Env } from '../sink-options.js';
import type { HttpSourceOptions } from '../sources/http-source-options.js';
import type { NatsSourceOptions } from '../sources/nats-source.js';
import type { InputLine } from '../sources/ndjson-lines.js';
import type { RedisSourceOptions } from '../sources/redis-source.js';
import type { CommandName } from './usage.js';

/** The process as a command sees it. */
export interface Io {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Env;
  /** Show a live progress line (stderr is a terminal). */
  readonly progress: boolean;
}

/** One input of `ingest` or `validate`: a file, stdin or the demo. */
export interface Input {
  readonly name: string;
  /** Its lines, a batch at a time (those of one chunk read: no promise per line). */
  readonly batches: AsyncIterable<readonly InputLine[]> | Iterable<readonly InputLine[]>;
  /** Its size, when known (a regular file): progress then says how far and how long. */
  readonly bytes?: number;
  /**
   * A regular file read once to its end (not followed): `ingest --workers` threads read it
   * themselves, each taking its own lines, instead of being handed them. Its `batches` are then
   * never read.
   */
  readonly path?: string;
}

/** Broker consumption (`nats`, `redis`). */
export interface ConsumeOptions {
  /** Stream scope for runtimes without run ids (the subject or key). */
  readonly scope: string;
  /** Messages held unacknowledged at most; pulling pauses beyond it. */
  readonly maxPending: number;
  /** End open runs as abandoned at shutdown instead of leaving their messages for redelivery. */
  readonly endOpenRunsOnShutdown: boolean;
  /** Longest a graceful shutdown may take. */
  readonly graceMillis: number;
  /** Checkpoint a run holding this many unacknowledged messages (0: never). */
  readonly checkpointEvery: number;
  /** Partitions restore their own checkpoints when taken; otherwise all are restored at start. */
  readonly partitioned: boolean;
  /** Without partitions: start even when another consumer reads the same durable or group. */
  readonly allowSharedConsumer: boolean;
  /** Serve `GET /runs` and `GET /healthz` here (undefined: no status endpoint). */
  readonly status?: {
    readonly host: string;
    readonly port: number;
    readonly token: string | undefined;
  };
  /** Partitions of the stream, to say which one each open run belongs to. */
  readonly partitions?: number;
}

/** `top`. */
export interface TopOptions {
  /** The bridge's base URL (`serve`, or a broker mode's `--status-port`). */
  readonly url: string;
  readonly token: string | undefined;
  readonly intervalMillis: number;
  /** Print one frame and exit (for scripts and captures). */
  readonly once: boolean;
}

/** `serve`. */
export interface ServeOptions extends Omit<HttpSourceOptions, 'dialect'> {
  /** Serve the bridge's metrics for Prometheus to scrape on this port (one worker only). */
  readonly prometheusPort: number | undefined;
  /** Worker threads mapping and exporting side by side (runs split between them). */
  readonly workers: number;
  /** Longest the shutdown may take after SIGINT/SIGTERM. */
  readonly graceMillis: number;
}

export type OutputMode = 'auto' | 'otlp' | 'terminal';

export interface CommonOptions {
  readonly dialect: InputDialect;
  readonly output: OutputMode;
  readonly agentName: string | undefined;
  readonly captureContent: boolean | undefined;
  /** `--prices FILE|off`: the user's price file, or no costs. */
  readonly prices?: string | undefined;
  /** Run-sampling flags as environment variables (`--sample-ratio`, `--keep-*`). */
  readonly samplingEnv?: Readonly<Record<string, string>>;
  readonly quiet: boolean;
  /** Print the summary as one JSON object on stdout instead of text. */
  readonly json: boolean;
}

export type Command =
  | {
      readonly name: 'ingest';
      readonly files: readonly string[];
      readonly strict: boolean;
      /** Tail the files as they grow (and are rotated) until SIGINT/SIGTERM. */
      readonly follow: boolean;
      /** Worker threads mapping and exporting side by side (runs split between them). */
      readonly workers: number;
      /** With `follow`: longest the shutdown may take after SIGINT/SIGTERM. */
      readonly graceMillis: number;
      readonly common: CommonOptions;
    }
  | { readonly name: 'demo'; readonly runs: number; readonly common: CommonOptions }
  | { readonly name: 'validate'; readonly files: readonly string[]; readonly common: CommonOptions }
  | {
      readonly name: 'crabtalk';
      readonly endpoint:
        { readonly socket: string } | { readonly host: string; readonly port: number };
      /** Longest the export at SIGINT/SIGTERM may take. */
      readonly graceMillis: number;
      readonly common: CommonOptions;
    }
  | {
      readonly name: 'nats';
      readonly nats: NatsSourceOptions;
      readonly consume: ConsumeOptions;
      readonly partitions: PartitionOptions | undefined;
      readonly common: CommonOptions;
    }
  | {
      readonly name: 'redis';
      readonly redis: RedisSourceOptions;
      readonly consume: ConsumeOptions;
      readonly partitions: PartitionOptions | undefined;
      readonly common: CommonOptions;
    }
  | {
      readonly name: 'route';
      readonly broker: 'nats' | 'redis';
      readonly router: RouterOptions;
      /** Longest the shutdown may take after SIGINT/SIGTERM. */
      readonly graceMillis: number;
      readonly common: CommonOptions;
    }
  | { readonly name: 'serve'; readonly serve: ServeOptions; readonly common: CommonOptions }
  | { readonly name: 'top'; readonly top: TopOptions }
  | { readonly name: 'help'; readonly command?: CommandName }
  | { readonly name: 'version' };

/** Partitioned consumption: this instance owns some of the stream's partitions (leases). */
export interface PartitionOptions {
  readonly partitions: number;
  /** Consumer processes on this machine, each an instance of its own (`<instance-id>-w<k>`). */
  readonly workers: number;
  readonly leaseMillis: number;
  readonly instanceId: string;
  /** NATS: the stream holding the partition subjects `<subject>.<p>`. */
  readonly partitionStream: string;
}
