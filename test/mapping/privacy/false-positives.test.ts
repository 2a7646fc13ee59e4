// What the scrubber masks that is no secret, measured on two benign corpora and held under a bound
// (docs/reliability.md reports the figures): real text — this project's sources and docs, the
// TypeScript DOM and ES5 type definitions, a package's README — and generated agent traffic:
// logs, UUIDs, commit and content hashes, numbers in prose, URLs, token counts, model names, paths.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_PATTERNS } from '../../../src/index.js';
import { createScrubbers } from '../../../src/mapping/privacy/scrub.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const scrub = createScrubbers(DEFAULT_SCRUB_PATTERNS).text;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'privacy'
        ? [] // the scrubber's own files spell out what it masks
        : sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

function realText(): string[] {
  const files = [
    ...sources(join(root, 'src')),
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md') && f !== 'reliability.md')
      .map((f) => join(root, 'docs', f)),
    join(root, 'node_modules/typescript/lib/lib.es5.d.ts'),
    join(root, 'node_modules/typescript/lib/lib.dom.d.ts'),
    join(root, 'node_modules/@opentelemetry/sdk-trace/README.md'),
  ];
  return files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
  );
}

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const word = fc.constantFrom('request', 'user', 'order', 'file', 'build', 'job', 'cache', 'worker');
/** Lines an agent reads and writes, none of them a secret. */
const benignLine = fc.oneof(
  fc
    .tuple(fc.date({ noInvalidDate: true }), fc.uuid(), fc.nat(100_000), word)
    .map(([d, id, ms, w]) => `${d.toISOString()} INFO ${w} ${id} took ${ms} ms`),
  hex(40).map((sha) => `commit ${sha}\nAuthor: Jane Doe <jane@localhost>`),
  hex(64).map((h) => `sha256:${h}  dist/app.tar.gz`),
  fc
    .tuple(fc.nat(10_000), fc.nat(1000))
    .map(([n, mb]) => `Downloaded ${n} files (${mb}.5 MB) in 3.2 s`),
  fc
    .tuple(fc.nat(100_000), fc.nat(50))
    .map(([id, page]) => `GET https://api.example.com/v1/users/${id}?page=${page}&sort=asc 200`),
  fc.tuple(fc.nat(100_000), fc.nat(10_000)).map(([p, c]) =>
    JSON.stringify({
      prompt_tokens: p,
      completion_tokens: c,
      total_tokens: p + c,
      max_tokens: 4096,
    }),
  ),
  fc
    .constantFrom(
      'claude-3-5-sonnet-20241022',
      'gpt-4o-mini-2024-07-18',
      'meta-llama/Llama-3.1-8B-Instruct',
      'Qwen2.5-Coder-32B-Instruct',
      'gemini-1.5-pro-002',
    )
    .map((m) => `model: ${m}, temperature: 0.2`),
  fc
    .tuple(fc.nat(500), fc.nat(80))
    .map(([l, c]) => `src/components/UserProfileCard.tsx:${l}:${c} error TS2345: Argument of type`),
  fc.uuid().map((id) => `session_id=${id} conversation_id=${id}`),
  fc.nat(100_000).map((n) => `The token count was ${n}; the key insight is that caching helps.`),
  fc
    .tuple(
      fc.constantFrom('The password', 'Your API key', 'The token', 'The session', 'Secret'),
      fc.constantFrom('is', 'was'),
      fc.constantFrom(
        'too short',
        'invalid',
        'incorrect',
        'rotated',
        'active',
        'not set',
        'expired',
      ),
    )
    .map(([name, verb, state]) => `${name} ${verb} ${state}; see the logs`),
  fc
    .tuple(fc.nat(65_535), fc.constantFrom('app', 'node', 'www-data'))
    .map(([id, user]) => `docker run -u ${id}:${id} img && docker exec -u ${user}:${user} web sh`),
  fc
    .nat(65_535)
    .map(
      (port) =>
        `gcc -pthread -pedantic -O2 main.c && mkdir -p build && ssh -p ${port} host && mysql -p app`,
    ),
  fc
    .tuple(fc.nat(20), fc.nat(20), fc.nat(20))
    .map(([a, b, c]) => `docker pull ghcr.io/acme/service:${a}.${b}.${c}`),
  fc
    .uuid()
    .map((id) => `{"call_id":"call_${id.replace(/-/g, '').slice(0, 24)}","name":"read_file"}`),
);

function changedShare(lines: readonly string[]): { changed: number; share: number } {
  const changed = lines.filter((l) => scrub(l) !== l).length;
  return { changed, share: changed / lines.length };
}

describe('false positives', () => {
  it('mask at most 0.25 % of the lines of real code and docs', () => {
    const lines = realText();
    expect(lines.length).toBeGreaterThan(50_000);
    const { changed, share } = changedShare(lines);
    console.log(
      `false positives, real text: ${changed} of ${lines.length} lines (${(share * 100).toFixed(3)} %)`,
    );
    expect(share).toBeLessThanOrEqual(0.0025);
  });

  it('mask no line of generated benign agent traffic', () => {
    const lines = fc.sample(benignLine, { numRuns: 20_000, seed: 20261125 });
    const masked = lines.filter((l) => scrub(l) !== l);
    console.log(`false positives, generated traffic: ${masked.length} of ${lines.length} lines`);
    expect(masked.slice(0, 5)).toEqual([]);
  });
});
