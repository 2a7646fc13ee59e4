// behest names its run first in every payload (`{"Variant":{"run_id":"…",…}}`, serde's field
// order), so a published line's run is found without parsing the line: the router, the partitions
// and the worker threads route by it on the hot path.

/** The line's start as serde writes it, up to the end of the run id. */
const RUN_ID_FIRST =
  /^\s*\{\s*"[A-Za-z][A-Za-z0-9]*"\s*:\s*\{\s*"run_id"\s*:\s*"((?:[^"\\]|\\.)+)"/;

/**
 * The run a behest line names, or undefined when it names none (not a behest event). A line whose
 * run id is not where serde puts it is parsed; so the answer is the parsed line's, not a guess.
 */
export function behestRunIdOf(text: string): string | undefined {
  const found = RUN_ID_FIRST.exec(text);
  if (found !== null) {
    const raw = found[1]!;
    if (!raw.includes('\\')) return raw;
    try {
      const unescaped: unknown = JSON.parse(`"${raw}"`);
      return typeof unescaped === 'string' && unescaped !== '' ? unescaped : undefined;
    } catch {
      return undefined;
    }
  }
  return parsedRunIdOf(text);
}

function parsedRunIdOf(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const payload = (value as Record<string, unknown>)[keys[0]!];
  if (typeof payload !== 'object' || payload === null) return undefined;
  const runId = (payload as Record<string, unknown>)['run_id'];
  return typeof runId === 'string' && runId !== '' ? runId : undefined;
}

/**
 * Serde's start of a line up to the end of its run id, anchored where matching starts (`y`): a
 * letter and letters or digits for the variant, then an id of printable ASCII without quotes or
 * backslashes. Neither class holds a line break, so a match never runs past its line.
 */
const PLAIN_START = /\{"[A-Za-z][A-Za-z0-9]*":\{"run_id":"([\x21\x23-\x5b\x5d-\x7e]+)"/y;

/**
 * The run id of the raw line `text.slice(from, to)` where it begins exactly as serde writes it
 * (`{"Variant":{"run_id":"…"`) and its id is printable ASCII with no escapes, read where it lies
 * (only the id is cut); undefined for any other line (ask `behestRunIdOf`). `text` is a chunk
 * decoded whole, or a line's bytes as Latin-1 (each byte the character of its own value: the
 * ASCII accepted here is itself, so the bytes need not be decoded). Where it answers, the answer
 * is `behestRunIdOf`'s for the decoded line: the pattern there matches the same characters with
 * the same id.
 */
export function behestPlainRunIdIn(text: string, from: number, to: number): string | undefined {
  PLAIN_START.lastIndex = from;
  const found = PLAIN_START.exec(text);
  return found === null || PLAIN_START.lastIndex > to ? undefined : found[1];
}
