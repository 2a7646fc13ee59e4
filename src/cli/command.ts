import type { InputDialect } from '../dialects/detect.js';
import type { NatsSourceOptions } from '../sources/nats-source.js';
import type { RedisSourceOptions } from '../sources/redis-source.js';
import type { RouterOptions } from '../partitions/router.js';
import type { ConsumeOptions } from './commands/consume.js';
import type { ServeOptions } from './commands/serve.js';
import type { CommandName } from './usage.js';

export type OutputMode = 'auto' | 'otlp' | 'terminal';

export interface CommonOptions {
  readonly dialect: InputDialect;
  readonly output: OutputMode;
  readonly agentName: string | undefined;
  readonly captureContent: boolean | undefined;
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
      readonly common: CommonOptions;
    }
  | { readonly name: 'serve'; readonly serve: ServeOptions; readonly common: CommonOptions }
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
