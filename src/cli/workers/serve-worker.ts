// The entry of one serve worker thread: Node's compile cache is turned on for the thread (each
// thread has its own, see ../compile-cache.ts) before its code is compiled, then the thread runs.
import { startCompileCache } from '../compile-cache.js';

startCompileCache();
await import('./serve-thread.js');
