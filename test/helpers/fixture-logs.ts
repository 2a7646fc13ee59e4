// The golden tests' inputs: fixture logs read as lines, an arrival clock for runtimes without
// timestamps, and the windows `ingest` reads a log with.
import { readFileSync } from 'node:fs';

/** `test/fixtures/<path>` as its lines. */
export const fixture = (path: string): string[] =>
  readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')
    .trim()
    .split('\n');

/** Arrival clock: 25 ms between lines, from 2025-06-01T12:00:00Z. */
export function steadyClock(): () => number {
  let now = Date.UTC(2025, 5, 1, 12);
  return () => (now += 25);
}

/** As `ingest` reads a log: a reorder window and a grace period, both also counted in events. */
export const INGEST_WINDOWS = {
  countWindowsInEvents: true,
  reorderWindowMillis: 1000,
  lateGraceMillis: 5000,
} as const;

/** `copies` runs of a behest fixture, each with its own run id (`runId` is the fixture's). */
export function fixtureCopies(name: string, runId: string, copies: number, tag: number): string {
  const text = readFileSync(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url), 'utf8');
  return Array.from({ length: copies }, (_, i) =>
    text.replaceAll(runId, `${runId.slice(0, 24)}${String(tag * 1000 + i).padStart(12, '0')}`),
  ).join('');
}
