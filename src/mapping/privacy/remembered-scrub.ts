// Free text repeats: a tool fails the same way many times, a doom loop is described in the same
// words in every run that falls into it, a runtime's errors are a few sentences. Scrubbing one
// short text runs every layer of the scrubber over it (several microseconds even where nothing is
// masked), so the short texts a sink has scrubbed lately are remembered with what they became.
// The scrubber is a function of the text alone, so a remembered answer is the one scrubbing again
// would give.
import type { Scrubber } from './scrub.js';

/** Texts longer than this are scrubbed every time (captured content, long stack traces). */
export const MAX_REMEMBERED_CHARS = 512;
/** Distinct texts remembered at most; the memory starts over when full. */
export const REMEMBERED_TEXTS = 1024;

/** `scrub`, answering a short text it has seen lately from memory. */
export function rememberScrubbed(scrub: Scrubber): Scrubber {
  const scrubbed = new Map<string, string>();
  return (text) => {
    if (text.length > MAX_REMEMBERED_CHARS) return scrub(text);
    let out = scrubbed.get(text);
    if (out === undefined) {
      out = scrub(text);
      if (scrubbed.size >= REMEMBERED_TEXTS) scrubbed.clear();
      scrubbed.set(text, out);
    }
    return out;
  };
}
