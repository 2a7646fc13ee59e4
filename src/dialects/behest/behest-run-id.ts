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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const RUN_ID_KEY = Buffer.from(':{"run_id":"', 'latin1');

/**
 * The run id of a raw line that begins exactly as serde writes it (`{"Variant":{"run_id":"…"`)
 * and whose id is printable ASCII with no escapes, read from its bytes without decoding the line;
 * undefined for any other line (decode it and ask `behestRunIdOf`). Where it answers, the answer
 * is `behestRunIdOf`'s for the decoded line: those bytes decode to the same characters, and the
 * pattern there matches them with the same id.
 */
export function behestPlainRunIdOf(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0x7b || bytes[1] !== QUOTE || !isAsciiLetter(bytes[2])) return undefined;
  let i = 3;
  while (i < bytes.length && isAsciiLetterOrDigit(bytes[i])) i += 1;
  if (bytes[i] !== QUOTE) return undefined;
  i += 1;
  for (let k = 0; k < RUN_ID_KEY.length; k += 1, i += 1)
    if (bytes[i] !== RUN_ID_KEY[k]) return undefined;
  const start = i;
  let code = bytes[i];
  while (code !== undefined && code > 0x20 && code < 0x7f && code !== QUOTE && code !== BACKSLASH)
    code = bytes[(i += 1)];
  if (code !== QUOTE || i === start) return undefined;
  return bytes.toString('latin1', start, i);
}

function isAsciiLetter(code: number | undefined): boolean {
  return code !== undefined && ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a));
}

function isAsciiLetterOrDigit(code: number | undefined): boolean {
  return isAsciiLetter(code) || (code !== undefined && code >= 0x30 && code <= 0x39);
}
