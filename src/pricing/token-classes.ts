import type { UsageTokens } from './price-table.js';

/** The disjoint classes a call's tokens are priced in; they add up to its input and output. */
export const TOKEN_CLASSES = ['input', 'cache_read', 'cache_write', 'output', 'reasoning'] as const;
export type TokenClass = (typeof TOKEN_CLASSES)[number];

/**
 * A call's tokens split into disjoint classes: uncached input, cache reads, cache writes,
 * non-reasoning output, reasoning. Input includes cached tokens and output includes reasoning, as
 * the GenAI conventions define them; a runtime whose cache counts exceed its input evidently
 * reported uncached input, and its input is taken as that.
 */
export function tokenClasses(usage: UsageTokens): Record<TokenClass, number> {
  const cached = usage.cacheRead + usage.cacheWrite;
  const uncachedInput = cached > usage.input ? usage.input : usage.input - cached;
  const reasoning = Math.min(usage.reasoning, usage.output);
  return {
    input: uncachedInput,
    cache_read: usage.cacheRead,
    cache_write: usage.cacheWrite,
    output: usage.output - reasoning,
    reasoning,
  };
}

/** The call's input with its cached tokens included (see `tokenClasses`). */
export function totalInput(usage: UsageTokens): number {
  const cached = usage.cacheRead + usage.cacheWrite;
  return cached > usage.input ? usage.input + cached : usage.input;
}
