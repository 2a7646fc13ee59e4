import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { pause } from './broker-source.js';

export interface FollowOptions {
  /** How often to look for new data, truncation and rotation. Default 250 ms. */
  readonly pollMillis?: number;
  readonly signal: AbortSignal;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a growing file like `tail -F`: from the start, then whatever is appended, until `signal`
 * aborts. When the file is truncated it starts over; when it is rotated (renamed and replaced)
 * it finishes the old file and continues with the new one from its start.
 */
export async function* followFile(path: string, options: FollowOptions): AsyncGenerator<Buffer> {
  const pollMillis = options.pollMillis ?? 250;
  let handle: FileHandle | undefined = await open(path, 'r');
  let inode = (await handle.stat()).ino;
  let position = 0;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  try {
    while (handle !== undefined) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead > 0) {
        position += bytesRead;
        yield Buffer.from(buffer.subarray(0, bytesRead));
        continue;
      }
      if (options.signal.aborted) return;
      const current = await stat(path).catch(() => undefined);
      if (current !== undefined && current.ino !== inode) {
        // Rotated: the old file is read to its end (above); continue with the new one.
        await handle.close();
        handle = await open(path, 'r');
        inode = (await handle.stat()).ino;
        position = 0;
        continue;
      }
      if (current !== undefined && current.size < position) position = 0; // truncated
      await pause(pollMillis, options.signal);
    }
  } finally {
    await handle?.close();
  }
}
