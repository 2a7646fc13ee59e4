import type { OpenRun } from '../mapping/open-runs.js';

/** The runs in progress as `GET /runs` answers: how many are open, and the oldest of them. */
export interface OpenRunsView {
  readonly open: number;
  readonly runs: readonly OpenRun[];
}

/** Runs listed by default, and at most (`?limit=`). */
export const DEFAULT_RUNS_LIMIT = 1000;
export const MAX_RUNS_LIMIT = 10_000;

/** The `limit` of a `GET /runs` query, or a message saying what is wrong with it. */
export function runsLimit(url: string): number | string {
  const raw = new URL(url, 'http://localhost').searchParams.get('limit');
  if (raw === null) return DEFAULT_RUNS_LIMIT;
  const limit = Number(raw);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUNS_LIMIT)
    return `limit must be a whole number from 1 to ${MAX_RUNS_LIMIT}, got ${JSON.stringify(raw)}`;
  return limit;
}

/** Views of several sinks (worker threads, instances) as one: oldest first, at most `limit`. */
export function mergeOpenRuns(views: readonly OpenRunsView[], limit: number): OpenRunsView {
  return {
    open: views.reduce((sum, view) => sum + view.open, 0),
    runs: views
      .flatMap((view) => view.runs)
      .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0))
      .slice(0, limit),
  };
}
