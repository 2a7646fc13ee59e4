// Memory on a huge input: `ingest` of a behest log ten times larger than the heap it is allowed
// (`--max-old-space-size`), to a loopback OTLP receiver. The file is written in chunks, never held
// in memory. Peak RSS is reported next to the file size: it is bounded by the bridge's limits (open
// runs, export queue), not by the input. Usage: node bench/big-file.mjs [file MiB] [heap MiB]
import { Buffer } from 'node:buffer';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { behestLines, runCli } from './ingest.mjs';
import { startDiscardingReceiver } from './receiver.mjs';

async function writeLog(file, bytes) {
  const out = createWriteStream(file);
  let written = 0;
  while (written < bytes) {
    const chunk = `${behestLines(5000).join('\n')}\n`; // fresh run ids in every chunk
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
}

export async function bigFileBench({ fileMiB = 640, heapMiB = 64 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aob-big-'));
  const file = join(dir, 'events.ndjson');
  const receiver = await startDiscardingReceiver();
  try {
    await writeLog(file, fileMiB * 1048576);
    const size = statSync(file).size;
    const run = await runCli(['ingest', '--quiet', file], receiver.endpoint, [
      `--max-old-space-size=${heapMiB}`,
    ]);
    return { fileMiB: size / 1048576, heapMiB, seconds: run.seconds, maxRssMiB: run.maxRssMiB };
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await bigFileBench({
    fileMiB: Number(process.argv[2] ?? 640),
    heapMiB: Number(process.argv[3] ?? 64),
  });
  console.log(
    `${r.fileMiB.toFixed(0)} MiB file with a ${r.heapMiB} MiB heap: ${r.seconds.toFixed(1)} s, peak RSS ${r.maxRssMiB.toFixed(0)} MiB`,
  );
}
