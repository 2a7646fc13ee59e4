import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { SUBSCRIBE_EVENTS_REQUEST } from '../dialects/crabtalk/crabtalk-feed.js';

/** Where the daemon listens. */
export type CrabtalkEndpoint =
  { readonly socket: string } | { readonly host: string; readonly port: number };

export interface CrabtalkSocketOptions {
  readonly endpoint: CrabtalkEndpoint;
  /** One ServerMessage (without its length prefix). */
  readonly onFrame: (frame: Buffer) => void;
  /** Connection state changes and problems, one line each. */
  readonly onStatus: (status: {
    readonly kind: 'connected' | 'disconnected' | 'problem';
    readonly message: string;
  }) => void;
  /** Largest frame accepted; a larger length prefix closes the connection. Default 16 MiB (the daemon's limit). */
  readonly maxFrameBytes?: number;
  readonly initialBackoffMillis?: number;
  readonly maxBackoffMillis?: number;
}

export interface CrabtalkSubscription {
  /** Stops reconnecting and closes the connection. */
  close(): Promise<void>;
}

const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(message.length, 0);
  return Buffer.concat([header, message]);
}

/**
 * Subscribes to the daemon's event feed (4-byte big-endian length + protobuf frames) and keeps
 * the subscription alive: when the daemon goes away it reconnects with exponential backoff.
 */
export function subscribeCrabtalk(options: CrabtalkSocketOptions): CrabtalkSubscription {
  const maxFrame = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const initialBackoff = options.initialBackoffMillis ?? 100;
  const maxBackoff = options.maxBackoffMillis ?? 10_000;
  const where =
    'socket' in options.endpoint
      ? options.endpoint.socket
      : `${options.endpoint.host}:${options.endpoint.port}`;
  let backoff = initialBackoff;
  let socket: Socket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let onClosed: (() => void) | undefined;

  const scheduleReconnect = () => {
    if (closed) return;
    timer = setTimeout(open, backoff);
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  function open(): void {
    timer = undefined;
    let buffered: Buffer = Buffer.alloc(0);
    let failed = false;
    const s =
      'socket' in options.endpoint
        ? connect({ path: options.endpoint.socket })
        : connect({ host: options.endpoint.host, port: options.endpoint.port });
    socket = s;
    s.on('connect', () => {
      backoff = initialBackoff;
      s.write(frame(SUBSCRIBE_EVENTS_REQUEST));
      options.onStatus({
        kind: 'connected',
        message: `subscribed to the crabtalk daemon at ${where}`,
      });
    });
    s.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const length = buffered.readUInt32BE(0);
        if (length > maxFrame) {
          options.onStatus({
            kind: 'problem',
            message: `frame of ${length} bytes exceeds the ${maxFrame}-byte limit; closing the connection`,
          });
          failed = true;
          s.destroy();
          return;
        }
        if (buffered.length < 4 + length) break;
        const message = buffered.subarray(4, 4 + length);
        buffered = buffered.subarray(4 + length);
        options.onFrame(Buffer.from(message));
      }
    });
    s.on('error', (error) => {
      if (!failed)
        options.onStatus({
          kind: 'problem',
          message: `crabtalk daemon at ${where}: ${error.message}`,
        });
      failed = true;
    });
    s.on('close', () => {
      socket = undefined;
      if (closed) {
        onClosed?.();
        return;
      }
      options.onStatus({
        kind: 'disconnected',
        message: `connection to ${where} closed; reconnecting in ${backoff} ms`,
      });
      scheduleReconnect();
    });
  }

  open();
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (socket === undefined) return Promise.resolve();
      return new Promise((resolve) => {
        onClosed = resolve;
        socket?.destroy();
      });
    },
  };
}
