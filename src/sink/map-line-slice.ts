// A batch of read lines mapped a slice at a time: the readable ones through the stream's
// `handleJsonLines` (decoded before any is applied), those the reader turned down counted as
// rejected. Answers come back in the lines' order.
import type { HandleResult } from './agent-otel-sink.js';
import type { BridgeSink, LaneStream } from './bridge-sink-api.js';

/** A line as read: its text, or why the reader turned it down before parsing. */
export type SliceLine =
  { readonly text: string } | { readonly reason: string; readonly message: string };

/** Maps `lines[from..to)` and puts each line's answer at `answers[i - from]`. */
export function mapLineSlice(
  sink: Pick<BridgeSink, 'reject'>,
  stream: Pick<LaneStream, 'handleJsonLines'>,
  lines: readonly SliceLine[],
  from: number,
  to: number,
  answers: HandleResult[],
): void {
  const texts: string[] = [];
  for (let i = from; i < to; i += 1) {
    const line = lines[i]!;
    if ('text' in line) texts.push(line.text);
  }
  stream.handleJsonLines(texts, answers);
  if (texts.length === to - from) return;
  // Some were turned down by the reader: their answers go in between, in order.
  for (let i = to - 1, k = texts.length - 1; i >= from; i -= 1) {
    const line = lines[i]!;
    answers[i - from] = 'text' in line ? answers[k--]! : sink.reject(line.reason, line.message);
  }
}
