import type { Attributes, Exception } from '@opentelemetry/api';

const ATTR_EXCEPTION_MESSAGE = 'exception.message';
const ATTR_EXCEPTION_STACKTRACE = 'exception.stacktrace';
const ATTR_EXCEPTION_TYPE = 'exception.type';

/**
 * The attributes of the `exception` event the trace SDK's `recordException` adds, or undefined
 * where the exception has neither a type nor a message (the SDK then adds none).
 */
export function exceptionEventAttributes(exception: Exception): Attributes | undefined {
  const attributes: Attributes = {};
  if (typeof exception === 'string') attributes[ATTR_EXCEPTION_MESSAGE] = exception;
  else if (exception) {
    if (exception.code) attributes[ATTR_EXCEPTION_TYPE] = exception.code.toString();
    else if (exception.name) attributes[ATTR_EXCEPTION_TYPE] = exception.name;
    if (exception.message) attributes[ATTR_EXCEPTION_MESSAGE] = exception.message;
    if (exception.stack) attributes[ATTR_EXCEPTION_STACKTRACE] = exception.stack;
  }
  return attributes[ATTR_EXCEPTION_TYPE] || attributes[ATTR_EXCEPTION_MESSAGE]
    ? attributes
    : undefined;
}
