// The names of the runtimes the bridge reads: on the command line, in metrics
// (`agent_bridge.dialect`), in trace ids and in checkpoints. A new runtime adds its name here and
// its decoder in `dialects/` (see docs/adding-a-runtime.md); the compiler finds every other place.

/** The runtimes whose wire formats `dialects/` decodes. */
export const RUNTIME_DIALECTS = ['behest', 'oxi', 'agent-sdk', 'crabtalk'] as const;

export type RuntimeDialect = (typeof RUNTIME_DIALECTS)[number];

/** Names of the dialects the bridge reads. `native` is the library's own typed events. */
export type DialectName = RuntimeDialect | 'native';

export const DIALECT_NAMES: readonly DialectName[] = [...RUNTIME_DIALECTS, 'native'];

/** Dialects that can be named on input. `auto` decides from each line's shape. */
export type InputDialect = 'auto' | RuntimeDialect;

export const INPUT_DIALECTS: readonly InputDialect[] = ['auto', ...RUNTIME_DIALECTS];

/** Whether a stored or received name is one of the bridge's dialects. */
export function isDialectName(name: unknown): name is DialectName {
  return typeof name === 'string' && (DIALECT_NAMES as readonly string[]).includes(name);
}
