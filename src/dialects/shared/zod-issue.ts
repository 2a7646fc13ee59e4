import type * as z from 'zod';
import type { ParseResult } from './parse-result.js';
import { rejectedSchema } from './parse-result.js';

/** The first zod issue as a rejection with a dotted field path under `prefix`. */
export function toRejection(prefix: string, error: z.ZodError, sourceType?: string): ParseResult {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].join('.');
  return rejectedSchema(path, issue?.message ?? 'invalid', sourceType);
}
