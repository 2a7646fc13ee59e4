import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate as zlibInflate } from 'node:zlib';
import { jsonDeeperThan } from '../dialects/shared/json-depth.js';

/** A body line: its text, or why it cannot be read. */
export type BodyLine = { readonly text: string } | { readonly invalid: 'invalid_utf8' };

/**
 * The body, `undefined` when it exceeds the limit, or `busy` when `take(bytes so far)` refuses
 * (reading stops; the caller answers and closes the connection).
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  take: (bytes: number) => boolean,
  /** No bytes for this long: `idle`. */
  idleMillis = Number.POSITIVE_INFINITY,
): Promise<Buffer | undefined | 'busy' | 'idle'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let idle: NodeJS.Timeout | undefined;
    const watch = () => {
      if (idle !== undefined) clearTimeout(idle);
      if (Number.isFinite(idleMillis)) idle = setTimeout(() => stop('idle'), idleMillis);
    };
    const stop = (result: undefined | 'busy' | 'idle') => {
      done = true;
      if (idle !== undefined) clearTimeout(idle);
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop(undefined);
      if (!take(size)) return stop('busy');
      chunks.push(chunk);
      watch();
    };
    watch();
    req.on('data', onData);
    req.on('end', () => {
      if (idle !== undefined) clearTimeout(idle);
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (idle !== undefined) clearTimeout(idle);
      reject(error);
    });
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * NDJSON lines (each decoded on its own: a line that is not UTF-8 is rejected, the others are
 * read, as `ingest` does), or the elements of a JSON array (each serialized back to one line); a
 * string says why the body cannot be read.
 */
export function splitBody(body: Buffer, type: string, maxDepth: number): BodyLine[] | string {
  if (type === 'application/json') {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return 'body is not valid UTF-8';
    }
    const trimmed = text.trimStart();
    if (trimmed.startsWith('[')) {
      // Depth first: a deep array must not be parsed to find out (one level is the array).
      if (jsonDeeperThan(trimmed, maxDepth + 1))
        return `body nested deeper than ${maxDepth} levels (limit maxJsonDepth)`;
      try {
        const values = JSON.parse(trimmed) as unknown;
        return Array.isArray(values)
          ? values.map((v) => ({ text: JSON.stringify(v) }))
          : 'body is not a JSON array';
      } catch {
        return 'body is not a JSON array';
      }
    }
  }
  const lines: BodyLine[] = [];
  let from = 0;
  while (from <= body.length) {
    let to = body.indexOf(0x0a, from);
    if (to === -1) to = body.length;
    const end = to > from && body[to - 1] === 0x0d ? to - 1 : to;
    try {
      lines.push({ text: utf8.decode(body.subarray(from, end)) });
    } catch {
      lines.push({ invalid: 'invalid_utf8' });
    }
    from = to + 1;
  }
  return lines;
}

/** Bytes held at once, over all requests. */
export class ByteBudget {
  private used = 0;

  constructor(private readonly limit: number) {}

  take(bytes: number): boolean {
    if (bytes > 0 && this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** Body encodings taken (`Content-Encoding`), decoded within `maxBodyBytes`. */
export const ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);

const inflate = {
  gzip: promisify(gunzip),
  deflate: promisify(zlibInflate),
  br: promisify(brotliDecompress),
} as const;

/** A compressed body decoded, or why not: larger than `limit` once decoded, or not that encoding. */
export async function decompress(
  body: Buffer,
  encoding: string,
  limit: number,
): Promise<Buffer | 'too_large' | 'invalid'> {
  try {
    return await inflate[encoding as keyof typeof inflate](body, { maxOutputLength: limit });
  } catch (error) {
    return error instanceof RangeError ? 'too_large' : 'invalid';
  }
}
