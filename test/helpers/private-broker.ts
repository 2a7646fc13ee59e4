// A broker of the test's own (the machine's nats-server and redis-server binaries, on a free port,
// with a data directory of its own), so that a test can kill and restart it without disturbing the
// shared services other tests use.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { connect as connectTcp } from 'node:net';
import { freePort } from './free-port.js';

export interface PrivateBroker {
  readonly url: string;
  /** Kills the server (SIGKILL: no goodbye to its clients) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing is answered, until `resume()`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

async function waitForPort(port: number, timeoutMillis = 10_000): Promise<void> {
  const until = Date.now() + timeoutMillis;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connectTcp(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function privateBroker(
  scheme: string,
  command: string,
  args: (port: number) => string[],
): Promise<PrivateBroker> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(command, args(port), { stdio: 'ignore' });
    await waitForPort(port);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once('exit', resolve);
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    kill,
    restart: start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    // A paused server is let go on so that SIGKILL ends it.
    stop: kill,
  };
}

/** nats-server with JetStream, its store in `dir`. */
export function startNatsServer(dir: string): Promise<PrivateBroker> {
  return privateBroker('nats', '/usr/sbin/nats-server', (port) => [
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    '-js',
    '-sd',
    dir,
  ]);
}

/** redis-server keeping every write in an append-only file in `dir` (fsync always). */
export function startRedisServer(dir: string): Promise<PrivateBroker> {
  return privateBroker('redis', 'redis-server', (port) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--dir',
    dir,
  ]);
}
