// Seeded schedules of faults for the scale-out deployment: which process is hit, how, and when,
// all drawn from the seed, so that a failing seed replays the same schedule.
import { seeded } from './behest-delivery.js';

export type Fault =
  /** SIGKILL an instance; a new one (a fresh id) starts in its place. */
  | { readonly kind: 'kill'; readonly pick: number }
  /** SIGSTOP an instance for longer than its lease, then SIGCONT. */
  | { readonly kind: 'stall'; readonly pick: number; readonly millis: number }
  /**
   * SIGSTOP an instance or a router for less than its lease (a GC pause, a loaded machine): it
   * keeps its leases but misses its pulls' heartbeats, while the broker sends into them.
   */
  | { readonly kind: 'pause'; readonly pick: number; readonly millis: number }
  /** A new instance joins. */
  | { readonly kind: 'join' }
  /** An instance leaves gracefully (SIGTERM), if another one is left. */
  | { readonly kind: 'leave'; readonly pick: number }
  /** SIGKILL a router; a new one starts in its place. */
  | { readonly kind: 'kill-router'; readonly pick: number }
  /** A busy process beside the bridge for a while (on top of the constant one, if any). */
  | { readonly kind: 'hog'; readonly millis: number };

export interface Step {
  /** Wait this long after the previous step. */
  readonly afterMillis: number;
  /** Publish this batch of runs first (index into the batches), if any. */
  readonly publish: number | undefined;
  readonly fault: Fault | undefined;
}

const KINDS = ['kill', 'stall', 'pause', 'join', 'leave', 'kill-router', 'hog'] as const;

/**
 * A schedule: `batches` batches of runs published over its course, between them `faults` faults
 * of random kinds at random times (0.2–2 s apart), each hitting a random process.
 */
export function chaosSchedule(
  seed: number,
  options: { batches: number; faults: number; leaseMillis: number },
): Step[] {
  const random = seeded(seed);
  const steps: Step[] = [];
  const faultsAfter = Array.from({ length: options.batches }, () => 0);
  for (let f = 0; f < options.faults; f += 1)
    faultsAfter[Math.floor(random() * options.batches)]! += 1;
  const between = () => Math.round(200 + random() * 1800);
  for (let b = 0; b < options.batches; b += 1) {
    steps.push({ afterMillis: between(), publish: b, fault: undefined });
    for (let f = 0; f < faultsAfter[b]!; f += 1) {
      const kind = KINDS[Math.floor(random() * KINDS.length)]!;
      const pick = Math.floor(random() * 1000);
      const fault: Fault =
        kind === 'stall'
          ? { kind, pick, millis: Math.round(options.leaseMillis * (1.5 + random() * 1.5)) }
          : kind === 'pause'
            ? { kind, pick, millis: Math.round(options.leaseMillis * (0.2 + random() * 0.5)) }
            : kind === 'hog'
              ? { kind, millis: Math.round(1000 + random() * 4000) }
              : kind === 'join'
                ? { kind }
                : { kind, pick };
      steps.push({ afterMillis: between(), publish: undefined, fault });
    }
  }
  return steps;
}

export const describeFault = (fault: Fault): string =>
  fault.kind === 'stall' || fault.kind === 'pause' || fault.kind === 'hog'
    ? `${fault.kind} ${fault.millis} ms`
    : fault.kind;
