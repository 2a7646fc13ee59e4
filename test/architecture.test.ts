// The layout is kept by the build: eslint's per-folder fences refuse an import pointing up a layer
// (eslint.config.js), and this test refuses an import cycle anywhere in src/.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const SPECIFIER = /(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** src/ as a graph: each file and the src files it imports (type imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith('.'))
        targets.push(normalize(join(dirname(file), specifier)).replace(/\.js$/, '.ts'));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(relative(root, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('architecture', () => {
  it('reads the imports of every source file', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    const imports = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
    expect(imports).toBeGreaterThan(300);
    // Every relative import names a file that exists.
    for (const [file, targets] of graph)
      for (const target of targets)
        expect(graph.has(target), `${relative(root, file)} → ${relative(root, target)}`).toBe(true);
  });

  it('has no import cycle in src/', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const a = join(root, 'src/a.ts');
    const b = join(root, 'src/b.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['src/a.ts', 'src/b.ts']]);
  });
});
