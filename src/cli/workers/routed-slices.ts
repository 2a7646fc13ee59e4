// A batch of lines the main thread routed to a share, cut into the slices the share maps at once:
// consecutive lines of one input read in one dialect (one stream), at most a slice's worth.
import type { InputDialect } from '../../events/dialect-name.js';
import type { SliceLine } from '../../sink/map-line-slice.js';
import type { LineBatch } from './worker-protocol.js';

/** A line with its number in its input. */
export type ReadLine = SliceLine & { readonly lineNumber: number };

/** Lines of one input, read in one dialect, in the batch's order. */
export interface RoutedSlice {
  readonly input: number;
  readonly dialect: InputDialect;
  readonly lines: readonly ReadLine[];
}

/**
 * The batch's lines in order, in slices of at most `most` lines; a slice ends where the input or
 * the dialect changes. A line the reader turned down (null) carries its reason from `bad`.
 */
export function* routedSlices(
  batch: LineBatch,
  defaultDialect: InputDialect,
  most: number,
): Generator<RoutedSlice> {
  const bad = new Map(batch.bad.map((b) => [b.index, b]));
  const count = batch.text.length;
  for (let i = 0; i < count;) {
    const input = batch.input[i]!;
    const dialect = batch.dialect[i] ?? defaultDialect;
    const lines: ReadLine[] = [];
    for (
      ;
      i < count &&
      lines.length < most &&
      batch.input[i] === input &&
      (batch.dialect[i] ?? defaultDialect) === dialect;
      i += 1
    ) {
      const lineNumber = batch.lineNumber[i]!;
      const text = batch.text[i] ?? null;
      const why = bad.get(i);
      lines.push(
        text === null
          ? {
              lineNumber,
              reason: why?.reason ?? 'invalid_line',
              message: why?.message ?? 'unreadable line',
            }
          : { lineNumber, text },
      );
    }
    yield { input, dialect, lines };
  }
}
