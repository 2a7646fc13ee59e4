import type { TerminalEvent } from '../../events/agent-event.js';
import { toRunErrorType } from '../privacy/error-class.js';
import type { RunRecord } from '../run-state.js';
import type { TrackerContext } from '../tracker-context.js';
import type { RunEnding } from './run-span.js';

/** How a terminal event ends its run: the outcome, and what the run span and metrics say of it. */
export function toEnding(ctx: TrackerContext, run: RunRecord, event: TerminalEvent): RunEnding {
  switch (event.type) {
    case 'RunCompleted':
      return {
        outcome: 'completed',
        time: event.time,
        ...(event.finishReason === undefined ? {} : { finishReason: event.finishReason }),
        ...(event.iterations === undefined ? {} : { iterations: event.iterations }),
      };
    case 'RunFailed':
      return {
        outcome: 'failed',
        time: event.time,
        errorType: toRunErrorType(event.error, run.sawDoomLoop),
        ...(ctx.exportErrorText ? { errorMessage: ctx.freeText(event.error) } : {}),
      };
    case 'RunCancelled':
      return { outcome: 'cancelled', time: event.time };
  }
}
