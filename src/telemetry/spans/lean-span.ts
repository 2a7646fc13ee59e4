import { diag, SpanStatusCode } from '@opentelemetry/api';
import type {
  Attributes,
  AttributeValue,
  Exception,
  HrTime,
  Link,
  SpanContext,
  SpanKind,
  SpanStatus,
  TimeInput,
} from '@opentelemetry/api';
import {
  AddAttributeDecision,
  cleanAttributes,
  cleanSimpleAttributes,
  hrTimeDuration,
  isTimeInput,
  isTimeInputHrTime,
  maybeAddAttribute,
} from '@opentelemetry/core';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { exceptionEventAttributes } from './exception-event.js';
import { isPlainScalar, NO_ATTRIBUTES, plainEventAttributes } from './plain-attributes.js';
import { SpanClock } from './span-clock.js';
import type { LeanSpanLimits, LeanSpanStart } from './lean-span-start.js';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';

/**
 * A recording span that is also the record its processors and exporters read: the trace SDK's
 * span, with what it does for every attribute (a `WeakSet` per value checked, a copy of every
 * set) done only where a value is not a plain string, number or boolean. What it records, and
 * every limit, warning and drop, is the SDK's (`test/telemetry/spans/lean-span.test.ts` holds the
 * two to each other on generated operations).
 */
export class LeanSpan implements Span, ReadableSpan {
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext?: SpanContext;
  readonly attributes: Attributes;
  links: Link[];
  readonly events: TimedEvent[] = [];
  readonly startTime: HrTime;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  ended = false;
  droppedAttributesCount: number;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private attributesCount: number;
  private readonly ids: SpanContext;
  private readonly processor: SpanProcessor;
  private readonly limits: LeanSpanLimits;
  /**
   * Made where a time is not given as an `HrTime`: at the start where its time is not one, else
   * at the first such time (the span's start was then given).
   */
  private clock: SpanClock | undefined;

  constructor(start: LeanSpanStart) {
    this.ids = start.spanContext;
    this.processor = start.processor;
    this.limits = start.limits;
    this.name = start.name;
    // Always set, as the SDK's span does (one shape for every span).
    (this as { parentSpanContext?: SpanContext | undefined }).parentSpanContext =
      start.parentSpanContext;
    this.kind = start.kind;
    if (isTimeInputHrTime(start.startTime)) this.startTime = start.startTime;
    else {
      const clock = (this.clock = new SpanClock(start.startTime != null));
      this.startTime = clock.timeOf(start.startTime ?? clock.startedAt, undefined);
    }
    this.resource = start.resource;
    this.instrumentationScope = start.scope;
    const { linkCountLimit } = this.limits;
    if (start.links.length > linkCountLimit) {
      this.links = start.links.slice(start.links.length - linkCountLimit);
      this.droppedLinksCount = start.links.length - linkCountLimit;
    } else this.links = start.links;
    this.attributes = start.attributes;
    this.attributesCount = Object.keys(start.attributes).length;
    this.droppedAttributesCount = start.droppedAttributesCount;
    this.processor.onStart(this, start.context);
  }

  spanContext(): SpanContext {
    return this.ids;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.endedWarned()) return this;
    const { attributes, limits } = this;
    // A length limit that is not positive is the SDK's to warn of.
    const maxLength = limits.attributeValueLengthLimit;
    if (maxLength > 0 && key.length > 0 && isPlainScalar(value, maxLength)) {
      if (Object.hasOwn(attributes, key)) attributes[key] = value;
      else if (this.attributesCount < limits.attributeCountLimit) {
        attributes[key] = value;
        this.attributesCount += 1;
      } else this.dropAttribute();
      return this;
    }
    const decision = maybeAddAttribute({
      key,
      value,
      attributes,
      limits,
      currentAttributesCount: this.attributesCount,
    });
    if (decision === AddAttributeDecision.DROP_LIMIT_REACHED) this.dropAttribute();
    else if (decision === AddAttributeDecision.ADD_NEW) this.attributesCount += 1;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes)
      if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(
    name: string,
    attributesOrStartTime?: Attributes | TimeInput,
    timeStamp?: TimeInput,
  ): this {
    if (this.endedWarned()) return this;
    const { eventCountLimit } = this.limits;
    if (eventCountLimit === 0) {
      diag.warn('No events allowed.');
      this.droppedEventsCount += 1;
      return this;
    }
    if (this.events.length >= eventCountLimit) {
      if (this.droppedEventsCount === 0) diag.debug('Dropping extra events.');
      this.events.shift();
      this.droppedEventsCount += 1;
    }
    let attributes = attributesOrStartTime as Attributes | undefined;
    if (isTimeInput(attributesOrStartTime)) {
      if (!isTimeInput(timeStamp)) timeStamp = attributesOrStartTime;
      attributes = undefined;
    }
    const time = isTimeInputHrTime(timeStamp) ? timeStamp : this.timeOf(timeStamp);
    const simple = plainEventAttributes(attributes, this.limits);
    this.events.push(
      simple === undefined
        ? {
            name,
            time,
            ...cleanSimpleAttributes(attributes, {
              attributeCountLimit: this.limits.attributePerEventCountLimit,
              attributeValueLengthLimit: this.limits.attributeValueLengthLimit,
            }),
          }
        : simple === NO_ATTRIBUTES
          ? { name, time }
          : { name, time, attributes: simple, droppedAttributesCount: 0 },
    );
    return this;
  }

  addLink(link: Link): this {
    if (this.endedWarned()) return this;
    const { linkCountLimit } = this.limits;
    if (linkCountLimit === 0) {
      this.droppedLinksCount += 1;
      return this;
    }
    if (this.links.length >= linkCountLimit) {
      if (this.droppedLinksCount === 0) diag.debug('Dropping extra links.');
      this.links.shift();
      this.droppedLinksCount += 1;
    }
    this.links.push({
      context: link.context,
      ...cleanAttributes(link.attributes, {
        attributeCountLimit: this.limits.attributePerLinkCountLimit,
        attributeValueLengthLimit: this.limits.attributeValueLengthLimit,
      }),
    });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.endedWarned()) return this;
    if (status.code === SpanStatusCode.UNSET) return this;
    if (this.status.code === SpanStatusCode.OK) return this;
    const next: SpanStatus = { code: status.code };
    if (status.code === SpanStatusCode.ERROR) {
      if (typeof status.message === 'string') next.message = status.message;
      else if (status.message != null)
        diag.warn(
          `Dropping invalid status.message of type '${typeof status.message}', expected 'string'`,
        );
    }
    this.status = next;
    return this;
  }

  updateName(name: string): this {
    if (this.endedWarned()) return this;
    this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.endedWarned()) {
      diag.error(
        `${this.name} ${this.ids.traceId}-${this.ids.spanId} - You can only call end() on a span once.`,
      );
      return;
    }
    this.endTime = isTimeInputHrTime(endTime) ? endTime : this.timeOf(endTime);
    this.duration = hrTimeDuration(this.startTime, this.endTime);
    if (this.duration[0] < 0) {
      diag.warn(
        'Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.',
        this.startTime,
        this.endTime,
      );
      this.endTime = this.startTime.slice() as HrTime;
      this.duration = [0, 0];
    }
    if (this.droppedEventsCount > 0)
      diag.warn(`Dropped ${this.droppedEventsCount} events because eventCountLimit reached`);
    if (this.droppedLinksCount > 0)
      diag.warn(`Dropped ${this.droppedLinksCount} links because linkCountLimit reached`);
    this.processor.onEnding?.(this);
    this.ended = true;
    this.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes = exceptionEventAttributes(exception);
    if (attributes !== undefined) this.addEvent('exception', attributes, time);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the SDK's own message
    else diag.warn(`Failed to record an exception ${String(exception)}`);
  }

  private dropAttribute(): void {
    this.droppedAttributesCount += 1;
    if (this.droppedAttributesCount === 1) diag.warn('Dropping extra attributes.');
  }

  private endedWarned(): boolean {
    if (this.ended) {
      const { traceId, spanId } = this.ids;
      diag.warn(
        `Cannot execute the operation on ended Span {traceId: ${traceId}, spanId: ${spanId}}`,
        new Error(`Operation attempted on ended Span {traceId: ${traceId}, spanId: ${spanId}}`),
      );
    }
    return this.ended;
  }

  private timeOf(input: TimeInput | undefined): HrTime {
    return (this.clock ??= new SpanClock(true)).timeOf(input, this.startTime);
  }
}
