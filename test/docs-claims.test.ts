// docs/claims.md stays true: every test it names exists, under that name, in that file.
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const rows = readFileSync(new URL('docs/claims.md', root), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim()))
  // Not the header, nor the line under it.
  .filter((cells) => cells[0] !== 'claim' && !/^-+$/.test(cells[0] ?? ''));

it('names claims, each with a test', () => {
  expect(rows.length).toBeGreaterThanOrEqual(30);
  for (const row of rows) expect(row, row.join(' | ')).toHaveLength(4);
});

it.each(rows.map((row) => [row[0]!, row[2]!, row[3]!]))(
  '%s: %s holds a test named as it says',
  (_claim, file, test) => {
    const path = new URL(file, root);
    expect(existsSync(path), `${file} is missing`).toBe(true);
    const source = readFileSync(path, 'utf8').replace(/\s+/g, ' ');
    expect(source, `${file} has no test named "${test}"`).toContain(test);
  },
);
