// Every runtime the bridge reads, by name: its decoder and what the rest of the bridge may ask of
// its raw lines. Nothing outside `dialects/` knows a wire format; it asks here.
import { RUNTIME_DIALECTS } from '../events/dialect-name.js';
import type { RuntimeDialect } from '../events/dialect-name.js';
import { agentSdk } from './agent-sdk/agent-sdk.js';
import { behest } from './behest/behest.js';
import { crabtalk } from './crabtalk/crabtalk.js';
import { oxi } from './oxi/oxi.js';
import type { Dialect } from './shared/parse-result.js';

/** A runtime missing here is a compile error (the names live in `events/dialect-name.ts`). */
const REGISTRY: { readonly [name in RuntimeDialect]: Dialect } = {
  behest,
  oxi,
  'agent-sdk': agentSdk,
  crabtalk,
};

/** Every dialect, in the order auto-detection tries them. */
export const DIALECTS: readonly Dialect[] = RUNTIME_DIALECTS.map((name) => REGISTRY[name]);

export function dialectNamed(name: RuntimeDialect): Dialect {
  return REGISTRY[name];
}

/**
 * The run a raw line of `dialect` names, read without decoding it (routing by run: the router,
 * partitions, worker threads). Undefined for a line that names none, and for every line of a
 * dialect whose runs are named by their stream (oxi, agent-sdk, crabtalk): route those by stream.
 */
export function runIdOfLine(dialect: RuntimeDialect, text: string): string | undefined {
  return REGISTRY[dialect].runIdOf?.(text);
}

/**
 * `runIdOfLine` of a raw line's bytes where the dialect can tell without decoding them; undefined
 * where it cannot (decode the line and ask `runIdOfLine`).
 */
export function plainRunIdOfLine(dialect: RuntimeDialect, bytes: Buffer): string | undefined {
  const named = REGISTRY[dialect];
  if (named.plainRunIdIn === undefined) return undefined;
  // Latin-1 gives each byte the character of its own value, so the line is read, not decoded.
  return named.plainRunIdIn(bytes.toString('latin1'), 0, bytes.length);
}

/**
 * `plainRunIdOfLine` of the line `text.slice(from, to)` of a decoded chunk, read where it lies:
 * undefined where the dialect cannot tell that way (cut the line and ask `runIdOfLine`).
 */
export function plainRunIdInText(
  dialect: RuntimeDialect,
  text: string,
  from: number,
  to: number,
): string | undefined {
  return REGISTRY[dialect].plainRunIdIn?.(text, from, to);
}

/** Whether every line of `dialect` names its run (so its lines may be routed by run, not stream). */
export function routesByRun(dialect: RuntimeDialect): boolean {
  return REGISTRY[dialect].runIdOf !== undefined;
}

/** The dialect the runtimes that publish to a broker write in (partitions route by its run ids). */
export const PUBLISHED_DIALECT: RuntimeDialect = 'behest';
