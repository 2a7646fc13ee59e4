// Runs of runtimes without run ids are named after what the runtime emitted (scoped-runs.ts), so
// two streams that begin alike — every crabtalk JSON log opens with "TextStart" and has no times
// and no conversation — would name their first runs alike, and one stream's unfinished run would
// run into the other's. A derived id already taken by another stream's open run is derived again
// with the stream's name, for that stream: runs never merge across streams. A log read alone keeps
// the ids the contract promises; only the colliding stream's runs are renamed.
import { hash } from 'node:crypto';
import type { AgentEvent } from '../events/agent-event.js';
import { isTerminal } from '../events/agent-event.js';
import { toUuid } from '../dialects/shared/scoped-runs.js';

/** Dialects whose run ids the bridge derives (they can collide across streams). */
const DERIVED_IDS = new Set(['oxi', 'agent-sdk', 'crabtalk']);

/** Claims remembered at most (runs that never end are forgotten oldest first). */
const MAX_CLAIMS = 100_000;

export class RunIdClaims {
  /** Derived run id → the stream whose open run has it. */
  private readonly owners = new Map<string, string>();

  private claim(id: string, scope: string): void {
    this.owners.set(id, scope);
    if (this.owners.size > MAX_CLAIMS) this.owners.delete(this.owners.keys().next().value!);
  }

  /** One stream's view: its renamed runs, by the id its decoder gave them. */
  stream(scope: string): (events: readonly AgentEvent[], dialect: string) => readonly AgentEvent[] {
    const renamed = new Map<string, string>();
    const mine = new Set<string>();
    return (events, dialect) => {
      if (!DERIVED_IDS.has(dialect)) return events;
      let out: AgentEvent[] | undefined;
      events.forEach((event, i) => {
        const id = event.runId;
        let actual = renamed.get(id);
        if (actual === undefined && !mine.has(id)) {
          const owner = this.owners.get(id);
          if (owner === undefined || owner === scope) {
            this.claim(id, scope);
            mine.add(id);
          } else {
            actual = rename(id, scope);
            renamed.set(id, actual);
            this.claim(actual, scope);
          }
        }
        if (actual !== undefined) (out ??= [...events])[i] = { ...event, runId: actual };
        if (isTerminal(event)) {
          this.owners.delete(actual ?? id);
          renamed.delete(id);
          mine.delete(id);
        }
      });
      return out ?? events;
    };
  }
}

/** The id again, as a version-8 UUID digest of itself and the stream's name. */
function rename(runId: string, scope: string): string {
  return toUuid(hash('sha256', `${runId}\0stream\0${scope}`, 'hex'));
}
