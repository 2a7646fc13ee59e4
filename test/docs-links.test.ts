// Every relative link in the README, the changelog and docs/ leads to a file of the repository,
// and every `#anchor` into a Markdown file to one of its headings (as GitHub makes them).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pages = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (page: string): Set<string> =>
  new Set(
    [...readFileSync(join(root, page), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      anchorOf(m[1]!.replace(/`/g, '')),
    ),
  );

describe('documentation links', () => {
  it.each(pages)('%s links only to what exists', (page) => {
    const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), path!));
      if (!existsSync(join(root, file))) broken.push(`${target}: no ${file}`);
      else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });
});
