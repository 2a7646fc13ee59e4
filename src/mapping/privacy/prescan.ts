// One scan before many: a layer of the scrubber runs each of its patterns over the whole text in
// turn (about fifty for the issuers' shapes alone), and most texts (ids, names, ordinary errors)
// match none of them. The prescan is every pattern of a layer joined in one alternation: where it
// finds nothing, no pattern of the layer can match anywhere in the text, so the layer would
// return the text unchanged and is skipped. Where it finds something, the layer runs as it always
// did. It is a filter, never a decision: a pattern it cannot join exactly is scanned always.

/** Flags under which a pattern joins an alternation unchanged in meaning (`g` and `d` do not matter to a search). */
const JOINABLE_FLAGS = /^[gdi]*$/;
/** A back reference counts groups, and joining renumbers them. */
const BACK_REFERENCE = /\\(?:[1-9]|k<)/;

/** Whether any of `patterns` may match somewhere in a text: false only where none can. */
export type Prescan = (text: string) => boolean;

export function createPrescan(patterns: readonly RegExp[]): Prescan {
  const alone: RegExp[] = [];
  const joinable: { readonly sensitive: string[]; readonly insensitive: string[] } = {
    sensitive: [],
    insensitive: [],
  };
  for (const pattern of patterns) {
    if (!JOINABLE_FLAGS.test(pattern.flags) || BACK_REFERENCE.test(pattern.source)) {
      alone.push(pattern);
      continue;
    }
    (pattern.ignoreCase ? joinable.insensitive : joinable.sensitive).push(pattern.source);
  }
  const scans: RegExp[] = [];
  for (const [sources, flags] of [
    [joinable.sensitive, ''],
    [joinable.insensitive, 'i'],
  ] as const) {
    if (sources.length === 0) continue;
    try {
      // Group names may repeat across alternatives; each pattern keeps its own.
      scans.push(new RegExp(sources.map((s) => `(?:${s})`).join('|'), flags));
    } catch {
      // An engine that cannot join them: each is scanned on its own.
      for (const source of sources) scans.push(new RegExp(source, flags));
    }
  }
  // Patterns that cannot be joined are tested as they are, without their state.
  for (const pattern of alone)
    scans.push(new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')));
  return (text) => {
    for (const scan of scans) if (scan.test(text)) return true;
    return false;
  };
}
