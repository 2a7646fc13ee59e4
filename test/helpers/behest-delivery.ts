// Delivery as behest's publisher makes it: each event is published from a task of its own, so a
// run's events reach the broker displaced by a few positions, some twice, some after the run's
// terminal event. Deterministic for a seed.

/** A small seeded generator (mulberry32): the same seed, the same delivery. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const runIdOf = (line: string): string => {
  const value = JSON.parse(line) as Record<string, { run_id?: string }>;
  return Object.values(value)[0]?.run_id ?? '';
};

const TERMINAL = /^\{"Run(Completed|Failed|Cancelled)"/;

/**
 * Behest lines (in emission order, runs interleaved) as a publisher delivers them: within each
 * run every event displaced by up to `window` positions, one in four runs with an event moved
 * after its terminal event, one event in ten published twice, runs interleaved again.
 */
export function publishedAsBehestDoes(
  lines: readonly string[],
  window: number,
  seed: number,
): string[] {
  const random = seeded(seed);
  const byRun = new Map<string, string[]>();
  const order: string[] = [];
  for (const line of lines) {
    const id = runIdOf(line);
    if (!byRun.has(id)) {
      byRun.set(id, []);
      order.push(id);
    }
    byRun.get(id)!.push(line);
  }
  const queues = order.map((id) => {
    const run = byRun.get(id)!;
    const keyed = run.map((line, i) => ({ line, key: i + random() * window }));
    keyed.sort((a, b) => a.key - b.key);
    const out = keyed.map((k) => k.line);
    const terminal = out.findIndex((l) => TERMINAL.test(l));
    if (terminal > 1 && random() < 0.25) {
      const [moved] = out.splice(terminal - 1, 1);
      out.push(moved!);
    }
    for (let i = out.length - 1; i >= 0; i -= 1)
      if (random() < 0.1) out.splice(i + 1 + Math.floor(random() * 3), 0, out[i]!);
    return out;
  });
  const published: string[] = [];
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    published.push(open[Math.floor(random() * Math.min(open.length, 4))]!.shift()!);
  }
  return published;
}
