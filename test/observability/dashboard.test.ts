import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildDashboard, panelQueries, toJson } from '../../observability/grafana/dashboard.js';

const committed = readFileSync(
  new URL('../../observability/grafana/dashboards/agent-runs.json', import.meta.url),
  'utf8',
);

describe('the Agent runs dashboard', () => {
  it('is committed exactly as the generator builds it (run `node observability/grafana/dashboard.ts`)', () => {
    expect(committed).toBe(toJson(buildDashboard()));
  });

  it('has the panels, variables, annotations and trace links users look for', () => {
    const dashboard = buildDashboard();
    const titles = (dashboard.panels ?? []).map((p) => p.title);
    for (const title of [
      'Runs by outcome',
      'Failure ratio',
      'Active runs',
      'Doom loops and breaker trips',
      'Iterations per run',
      'Token usage by model and type',
      'Model latency',
      'Time to first chunk',
      'Cost by model',
      'Cost by agent',
      'Unpriced tokens',
      'Cache hit ratio',
      'Tool duration p95',
      'Tool error ratio',
      'Slowest tools',
      'Input events by outcome',
      'Runs evicted',
    ]) {
      expect(titles).toContain(title);
    }
    expect(dashboard.templating?.list?.map((v) => v.name)).toEqual([
      'service',
      'agent',
      'provider',
      'model',
      'tool',
    ]);
    expect(dashboard.annotations?.list?.map((a) => a.name)).toEqual(
      expect.arrayContaining(['Doom loops', 'Compaction breaker trips']),
    );
    const runs = (dashboard.panels ?? []).find((p) => p.title === 'Runs by outcome') as {
      links?: { url?: string }[];
    };
    // One link works with every agent selected ("All"), the other filters by the one selected;
    // neither names the service literally.
    expect(runs.links?.map((l) => l.url)).toEqual([
      'http://localhost:16686/search?service=${service}',
      'http://localhost:16686/search?service=${service}&tags=%7B%22gen_ai.agent.name%22%3A%22${agent}%22%7D',
    ]);
    expect(panelQueries(dashboard).every((q) => !q.expr.includes('gen_ai_system'))).toBe(true);
  });
});
