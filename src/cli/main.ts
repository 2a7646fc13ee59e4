#!/usr/bin/env node
// The CLI's entry. Where the command's work is long, it first starts itself again with a young
// generation sized for it (`young-generation.ts`). Before any of the CLI's code is compiled, it
// turns on Node's compile cache (compiled code kept on disk, in `NODE_COMPILE_CACHE` or the
// system's temporary directory): a start then reuses what the last one compiled instead of
// compiling the bundle again. The cache is an optimisation only: where it cannot be used (a Node
// without it, a directory that cannot be written, `NODE_DISABLE_COMPILE_CACHE` set) the CLI
// compiles as before. Then it runs the CLI.
import { startCompileCache } from './compile-cache.js';
import { startWithYoungGeneration } from './young-generation.js';

startWithYoungGeneration();
startCompileCache();
await import('./run-cli.js');
