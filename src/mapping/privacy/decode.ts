// Decode before scanning: a secret written with JSON escapes (`\u0067hp_…`, as a JSON string in a
// JSON string) or URL escapes (`ghp%5F…`, a query string) is still the secret. Each decoder gives
// the text undone, or undefined when there is nothing to undo; the scrubber scans both.

const JSON_ESCAPE = /\\(?:u([0-9A-Fa-f]{4})|(["\\/bfnrt]))/g;
const SIMPLE: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** The text with JSON string escapes undone, or undefined when it has none. */
export function unescapeJson(text: string): string | undefined {
  if (!text.includes('\\')) return undefined;
  const out = text.replace(
    JSON_ESCAPE,
    (match, hex: string | undefined, simple: string | undefined) =>
      hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (SIMPLE[simple ?? ''] ?? match),
  );
  return out === text ? undefined : out;
}

const URL_ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/** The text with URL escapes (`%XX`, UTF-8) undone, or undefined when it has none. */
export function decodeUrl(text: string): string | undefined {
  if (!text.includes('%')) return undefined;
  const out = text.replace(URL_ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Not UTF-8: each byte as a character of its own.
      return run.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
        String.fromCharCode(parseInt(hex, 16)),
      );
    }
  });
  return out === text ? undefined : out;
}
