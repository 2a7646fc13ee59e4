import { INVALID_SPAN_CONTEXT, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';

/**
 * The key under which the API keeps a context's span, found through the API itself: the context
 * `trace.setSpan` is given records the key it sets. Undefined if the API ever stops setting one.
 */
const SPAN_KEY: symbol | undefined = (() => {
  let found: symbol | undefined;
  const recorder: Context = {
    getValue: () => undefined,
    setValue(key) {
      found = key;
      return recorder;
    },
    deleteValue: () => recorder,
  };
  trace.setSpan(recorder, trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  return found;
})();

/**
 * A context in which `span` is the parent: it answers the span's key itself and every other key
 * from `parent`, so that starting a child copies nothing (the API's context copies its map of
 * values and makes three closures for each value set). Setting or deleting a value makes the
 * API's own context.
 */
class SpanParentContext implements Context {
  constructor(
    private readonly parent: Context,
    private readonly span: Span,
  ) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.span : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(this.parent, this.span).setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return trace.setSpan(this.parent, this.span).deleteValue(key);
  }
}

/** `trace.setSpan(parent, span)`, without a copy of `parent`'s values. */
export function withSpanParent(parent: Context, span: Span): Context {
  return SPAN_KEY === undefined ? trace.setSpan(parent, span) : new SpanParentContext(parent, span);
}
