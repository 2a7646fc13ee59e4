// `JSON.parse` of every line of a file, in a process of its own: what this machine gives the
// baseline's work in one process, and in two at once (bench/ingest.mjs runs it both ways).
// Usage: node bench/parse-file.mjs <file>
import { readFileSync } from 'node:fs';

let count = 0;
for (const line of readFileSync(process.argv[2], 'utf8').split('\n'))
  if (line !== '') count += JSON.parse(line) ? 1 : 0;
if (count === 0) {
  process.stderr.write(`parse-file: no lines in ${process.argv[2]}\n`);
  process.exitCode = 1;
}
