// A stand-in crabtalk daemon for tests: it speaks the real framing (4-byte big-endian length +
// protobuf) on a unix socket or TCP, expects the subscribe_events request and sends scripted
// AgentEventMsg frames. (The real daemon is a Rust binary that cannot be installed here.)
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

function varint(value: number | bigint): Buffer {
  let v = BigInt(value);
  const bytes: number[] = [];
  while (v >= 0x80n) {
    bytes.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  bytes.push(Number(v));
  return Buffer.from(bytes);
}
const key = (no: number, wire: number) => varint((no << 3) | wire);
const bytesField = (no: number, value: Buffer | string) => {
  const b = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([key(no, 2), varint(b.length), b]);
};
const varintField = (no: number, value: number) => Buffer.concat([key(no, 0), varint(value)]);

export const KIND = {
  TEXT_DELTA: 0,
  THINKING_DELTA: 1,
  TOOL_START: 2,
  TOOL_RESULT: 3,
  TOOLS_COMPLETE: 4,
  DONE: 5,
  TEXT_START: 6,
  TEXT_END: 7,
} as const;

export interface AgentEventMsg {
  agent: string;
  sender: string;
  kind: number;
  content?: string;
  timestamp?: string;
  toolCalls?: { name: string; arguments: string }[];
  toolOutput?: string;
  toolIsError?: boolean;
}

/** `ServerMessage { agent_event (21): AgentEventMsg }`, framed. */
export function agentEventFrame(msg: AgentEventMsg): Buffer {
  const parts = [bytesField(1, msg.agent), bytesField(2, msg.sender), varintField(3, msg.kind)];
  if (msg.content !== undefined) parts.push(bytesField(4, msg.content));
  if (msg.timestamp !== undefined) parts.push(bytesField(5, msg.timestamp));
  for (const call of msg.toolCalls ?? [])
    parts.push(
      bytesField(6, Buffer.concat([bytesField(1, call.name), bytesField(2, call.arguments)])),
    );
  if (msg.toolOutput !== undefined) parts.push(bytesField(7, msg.toolOutput));
  if (msg.toolIsError === true) parts.push(varintField(8, 1));
  return frameOf(bytesField(21, Buffer.concat(parts)));
}

export function frameOf(message: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(message.length, 0);
  return Buffer.concat([header, message]);
}

export interface TestDaemon {
  readonly address: { socket: string } | { host: string; port: number };
  /** Every subscribe request received, as raw frames. */
  readonly requests: Buffer[];
  /** Resolves with the next client that has sent its subscribe request. */
  nextSubscriber(): Promise<Socket>;
  /** Closes the server and every connection (a daemon restart's first half). */
  stop(): Promise<void>;
  /** Listens again on the same address. */
  restart(): Promise<void>;
}

export async function startCrabtalkDaemon(
  listen: { socket: string } | { tcp: true },
): Promise<TestDaemon> {
  const requests: Buffer[] = [];
  const waiting: ((s: Socket) => void)[] = [];
  const ready: Socket[] = [];
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
        requests.push(buffered.subarray(0, 4 + buffered.readUInt32BE(0)));
        buffered = Buffer.alloc(0);
        const waiter = waiting.shift();
        if (waiter !== undefined) waiter(socket);
        else ready.push(socket);
      }
    });
  };
  const start = async () => {
    server = createServer(onConnection);
    await new Promise<void>((resolve) => {
      if ('socket' in listen) server.listen(listen.socket, resolve);
      else server.listen(port, '127.0.0.1', resolve);
    });
    if (!('socket' in listen)) port = (server.address() as AddressInfo).port;
  };
  await start();
  return {
    get address() {
      return 'socket' in listen ? { socket: listen.socket } : { host: '127.0.0.1', port };
    },
    requests,
    nextSubscriber: () => {
      const socket = ready.shift();
      return socket !== undefined
        ? Promise.resolve(socket)
        : new Promise((resolve) => waiting.push(resolve));
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    restart: start,
  };
}
