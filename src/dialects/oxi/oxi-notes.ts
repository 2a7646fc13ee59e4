import type { AnnotationValue } from '../../events/agent-event.js';
import { defined } from '../shared/annotation-values.js';
import { compactionAttributes } from './oxi-schemas.js';
import type { Payload, Schemas } from './oxi-schemas.js';

/** A span event on the run span for oxi's retries, fallbacks, compaction and rule interrupts. */
export interface RunNote {
  readonly event: string;
  readonly attributes: Record<string, AnnotationValue>;
}

type NoteMakers = { [K in keyof Schemas]?: (payload: Payload<K>) => RunNote };

const NOTES: NoteMakers = {
  compaction: (p) => ({ event: 'oxi.compaction', attributes: compactionAttributes(p.event) }),
  retry: (p) => ({
    event: 'oxi.retry',
    attributes: defined({
      'oxi.retry.attempt': p.attempt,
      'oxi.retry.max_retries': p.max_retries,
      'oxi.retry.after_s': p.retry_after_secs,
      'oxi.retry.reason': p.reason,
    }),
  }),
  autoRetryStart: (p) => ({
    event: 'oxi.auto_retry.start',
    attributes: defined({
      'oxi.retry.attempt': p.attempt,
      'oxi.retry.max_attempts': p.max_attempts,
      'oxi.retry.delay_ms': p.delay_ms,
      'oxi.retry.error': p.error_message,
    }),
  }),
  autoRetryEnd: (p) => ({
    event: 'oxi.auto_retry.end',
    attributes: defined({
      'oxi.retry.attempt': p.attempt,
      'oxi.retry.success': p.success,
      'oxi.retry.error': p.final_error,
    }),
  }),
  fallback: (p) => ({
    event: 'oxi.fallback',
    attributes: defined({
      'oxi.fallback.from_model': p.from_model,
      'oxi.fallback.to_model': p.to_model,
    }),
  }),
  ttsrInterrupt: (p) => ({
    event: 'oxi.ttsr_interrupt',
    attributes: defined({ 'oxi.ttsr.rule_name': p.rule_name }),
  }),
};

/** The run note an event type makes, if it is one of those. */
export function toRunNote<K extends keyof Schemas>(
  type: K,
  payload: Payload<K>,
): RunNote | undefined {
  const make = NOTES[type] as ((p: Payload<K>) => RunNote) | undefined;
  return make?.(payload);
}
