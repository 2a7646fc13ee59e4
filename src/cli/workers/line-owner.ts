import { plainRunIdInText, plainRunIdOfLine, runIdOfLine } from '../../dialects/registry.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { partitionOf } from '../../partitions/partition-of.js';

/**
 * The worker a line belongs to: its run's (hashed as partitions are) where its dialect names runs
 * in every line, else its input's, so that runtimes without run ids keep a whole input on one
 * worker (their runs are named within it).
 */
export function lineOwner(
  text: string | undefined,
  dialect: InputDialect,
  inputName: string,
  workers: number,
): number {
  const runId = text === undefined || dialect === 'auto' ? undefined : runIdOfLine(dialect, text);
  return partitionOf(runId ?? inputName, workers);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The worker a raw line belongs to, from its bytes (undefined: a line too long to hold), as each
 * worker reading the same file decides which lines are its own. Wherever the line decodes, the
 * answer is `lineOwner`'s for its text; where the dialect reads the run from the bytes, without
 * decoding them. A line that does not decode belongs to the run its bytes name, else to its
 * input's worker: to exactly one worker either way, which rejects it.
 */
export function lineOwnerOfBytes(
  bytes: Buffer | undefined,
  dialect: InputDialect,
  inputName: string,
  workers: number,
): number {
  if (bytes === undefined) return lineOwner(undefined, dialect, inputName, workers);
  const plain = dialect === 'auto' ? undefined : plainRunIdOfLine(dialect, bytes);
  if (plain !== undefined) return partitionOf(plain, workers);
  let text: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = undefined;
  }
  return lineOwner(text, dialect, inputName, workers);
}

/**
 * `lineOwner` of the line `text.slice(from, to)` of a chunk decoded whole: where the dialect reads
 * the run from the characters as they lie, the line is not cut.
 */
export function lineOwnerIn(
  text: string,
  from: number,
  to: number,
  dialect: InputDialect,
  inputName: string,
  workers: number,
): number {
  const plain = dialect === 'auto' ? undefined : plainRunIdInText(dialect, text, from, to);
  if (plain !== undefined) return partitionOf(plain, workers);
  return lineOwner(text.slice(from, to), dialect, inputName, workers);
}
