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
