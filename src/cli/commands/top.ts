import type { OpenRunsView } from '../../sources/open-runs-answer.js';
import type { Io, TopOptions } from '../command.js';
import { renderTop } from '../output/top-view.js';

const CLEAR = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/**
 * `agent-otel-bridge top [URL]`: the runs in progress of a running bridge, from its `GET /runs`,
 * redrawn in place every interval until q or Ctrl-C (once, with `--once` or when not a terminal).
 */
export async function runTop(io: Io, options: TopOptions): Promise<number> {
  const endpoint = `${options.url.replace(/\/+$/, '')}/runs`;
  const out = io.stdout as Partial<NodeJS.WriteStream>;
  const terminal = out.isTTY === true && !options.once;
  const fetchView = async (): Promise<OpenRunsView | string> => {
    try {
      const response = await fetch(endpoint, {
        headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
        signal: AbortSignal.timeout(Math.max(2000, options.intervalMillis)),
      });
      if (!response.ok) return `${endpoint} answered ${response.status}: ${await response.text()}`;
      return (await response.json()) as OpenRunsView;
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      return `cannot read ${endpoint}: ${cause ?? (error instanceof Error ? error.message : String(error))}`;
    }
  };
  const frame = (view: OpenRunsView | string): string[] =>
    typeof view === 'string'
      ? [`agent-otel-bridge top — ${view}`]
      : renderTop(view, {
          url: endpoint,
          now: new Date(),
          columns: terminal ? (out.columns ?? 120) : 200,
          rows: terminal ? Math.max(1, (out.rows ?? 30) - 6) : 50,
        });

  if (!terminal) {
    const view = await fetchView();
    if (typeof view === 'string') {
      io.stderr.write(`agent-otel-bridge: ${view}\n`);
      return 1;
    }
    io.stdout.write(`${frame(view).join('\n')}\n`);
    return 0;
  }

  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  const stdin = process.stdin;
  if (stdin.isTTY) {
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', (key: Buffer) => {
      const k = key.toString();
      if (k === 'q' || k === '\x03') stop();
    });
  }
  io.stdout.write(HIDE_CURSOR);
  try {
    for (;;) {
      const view = await fetchView();
      io.stdout.write(`${CLEAR}${frame(view).join('\n')}\n(q to quit)`);
      const tick = new Promise<'tick'>((resolve) =>
        setTimeout(() => resolve('tick'), options.intervalMillis).unref(),
      );
      if ((await Promise.race([stopped.then(() => 'stop' as const), tick])) === 'stop') break;
    }
  } finally {
    io.stdout.write(`${SHOW_CURSOR}\n`);
    if (stdin.isTTY) {
      stdin.setRawMode(false);
      stdin.pause();
    }
  }
  return 0;
}
