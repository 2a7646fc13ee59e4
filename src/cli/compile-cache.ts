// Node's on-disk compile cache (`module.enableCompileCache`, Node ≥ 22.1), turned on where the
// process and its worker threads start, before their code is loaded.
import * as nodeModule from 'node:module';

type EnableCompileCache = (directory?: string) => unknown;

/** Turns the compile cache on where this Node has it; never throws (the cache only saves time). */
export function startCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  try {
    // Without a directory: `NODE_COMPILE_CACHE`, else the system's temporary directory; Node
    // itself honours `NODE_DISABLE_COMPILE_CACHE`.
    enable?.();
  } catch {
    // Compiled as before.
  }
}
