// Runs of runtimes without run ids are named after what the runtime emitted (scoped-runs.ts), so
// two streams that begin alike — every crabtalk JSON log opens with "TextStart" and has no times
// and no conversation — would name their runs alike, and one stream's run would run into the
// other's, or be taken for a late copy of it. A derived id is claimed by the first stream that
// names a run with it; in any other stream of this process the same id is derived again with that
// stream's name, for that stream: runs never merge across streams. A log read alone keeps the ids
// the contract promises; only the colliding stream's runs are renamed.
//
// A claim lasts as long as the process remembers it (the newest MAX_CLAIMS), not until the run's
// terminal event is decoded: a run stays open after that, in the reorder window, and ended runs
// are remembered by the tracker for the late-grace period. A claim released at the terminal event
// let the next stream's run of the same id into the first one's, or have it counted as late.
import { hash } from 'node:crypto';
import type { AgentEvent } from '../events/agent-event.js';
import { toUuid } from '../dialects/shared/scoped-runs.js';

/** Dialects whose run ids the bridge derives (they can collide across streams). */
const DERIVED_IDS = new Set(['oxi', 'agent-sdk', 'crabtalk']);

/** Claims remembered at most (the oldest is forgotten first). */
export const MAX_CLAIMS = 100_000;

export class RunIdClaims {
  /** Derived run id → the stream that named a run with it first. */
  private readonly owners = new Map<string, string>();

  /** The stream that owns `id`, claiming it for `scope` when nobody does. */
  private ownerOf(id: string, scope: string): string {
    const owner = this.owners.get(id);
    if (owner !== undefined) return owner;
    this.owners.set(id, scope);
    if (this.owners.size > MAX_CLAIMS) this.owners.delete(this.owners.keys().next().value!);
    return scope;
  }

  /** One stream's view: its runs, renamed where another stream named theirs alike first. */
  stream(scope: string): (events: readonly AgentEvent[], dialect: string) => readonly AgentEvent[] {
    // The last id seen and what it became: a run's events come one after another.
    let lastId: string | undefined;
    let lastActual = '';
    return (events, dialect) => {
      if (!DERIVED_IDS.has(dialect)) return events;
      let out: AgentEvent[] | undefined;
      events.forEach((event, i) => {
        const id = event.runId;
        if (id !== lastId) {
          lastId = id;
          lastActual = this.ownerOf(id, scope) === scope ? id : this.renamed(id, scope);
        }
        if (lastActual !== id) (out ??= [...events])[i] = { ...event, runId: lastActual };
      });
      return out ?? events;
    };
  }

  /** `id` derived again for `scope`, and claimed for it. */
  private renamed(id: string, scope: string): string {
    const actual = rename(id, scope);
    this.ownerOf(actual, scope);
    return actual;
  }
}

/** The id again, as a version-8 UUID digest of itself and the stream's name. */
function rename(runId: string, scope: string): string {
  return toUuid(hash('sha256', `${runId}\0stream\0${scope}`, 'hex'));
}
