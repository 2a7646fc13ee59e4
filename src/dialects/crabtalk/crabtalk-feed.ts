import { parseRfc3339 } from '../../events/hr-time.js';
import { CrabtalkConversation } from './crabtalk-conversation.js';
import type { ParseResult } from '../shared/parse-result.js';
import { accepted, ignoredVariant } from '../shared/parse-result.js';
import { readFields, stringOf, varintOf } from './protobuf-wire.js';
import type { Field } from './protobuf-wire.js';
import { createArrivalClock, markArrivalTimed } from '../shared/stream-clock.js';

// The crabtalk daemon's subscribe_events feed: ServerMessage frames (crabtalk.protocol), of which
// `agent_event` (21) carries AgentEventMsg and `error` (1) an ErrorMsg.

/** Conversations remembered at most; the least recently started is forgotten beyond it. */
const MAX_CONVERSATIONS = 100_000;

/** `ClientMessage { subscribe_events (34): SubscribeEvents {} }`. */
export const SUBSCRIBE_EVENTS_REQUEST = Buffer.from([0x92, 0x02, 0x00]);

const KINDS = [
  'TEXT_DELTA',
  'THINKING_DELTA',
  'TOOL_START',
  'TOOL_RESULT',
  'TOOLS_COMPLETE',
  'DONE',
  'TEXT_START',
  'TEXT_END',
  'THINKING_START',
  'THINKING_END',
] as const;

/** What one ServerMessage frame was. */
export type FeedFrame =
  | { readonly kind: 'event'; readonly result: ParseResult }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'other' };

interface AgentEventMsg {
  agent: string;
  sender: string;
  kind: number;
  content: string;
  timestamp: string;
  toolCalls: { name: string; arguments: string }[];
  toolOutput: string;
  toolIsError: boolean;
}

function decodeAgentEvent(fields: Field[]): AgentEventMsg {
  const msg: AgentEventMsg = {
    agent: '',
    sender: '',
    kind: 0,
    content: '',
    timestamp: '',
    toolCalls: [],
    toolOutput: '',
    toolIsError: false,
  };
  for (const f of fields) {
    if (f.no === 1) msg.agent = stringOf(f);
    else if (f.no === 2) msg.sender = stringOf(f);
    else if (f.no === 3) msg.kind = Number(varintOf(f));
    else if (f.no === 4) msg.content = stringOf(f);
    else if (f.no === 5) msg.timestamp = stringOf(f);
    else if (f.no === 6) {
      const call = { name: '', arguments: '' };
      for (const c of readFields(f.wire === 2 ? f.value : Buffer.alloc(0))) {
        if (c.no === 1) call.name = stringOf(c);
        else if (c.no === 2) call.arguments = stringOf(c);
      }
      msg.toolCalls.push(call);
    } else if (f.no === 7) msg.toolOutput = stringOf(f);
    else if (f.no === 8) msg.toolIsError = varintOf(f) !== 0n;
  }
  return msg;
}

/** Decodes frames of the feed; one conversation per (agent, sender). */
export class CrabtalkFeedDecoder {
  private readonly conversations = new Map<string, CrabtalkConversation>();
  private readonly arrival: ReturnType<typeof createArrivalClock>;

  /** @param maxJsonDepth deepest JSON parsed in JSON-string tool arguments (`maxJsonDepth`). */
  constructor(
    now: () => number,
    private readonly maxJsonDepth?: number,
  ) {
    this.arrival = createArrivalClock(now);
  }

  /** Throws on a malformed frame (the caller reports and skips it). */
  decode(frame: Buffer): FeedFrame {
    const fields = readFields(frame);
    const event = fields.find((f) => f.no === 21 && f.wire === 2);
    if (event !== undefined)
      return {
        kind: 'event',
        result: this.stampedOrMarked(decodeAgentEvent(readFields(event.value as Buffer))),
      };
    const error = fields.find((f) => f.no === 1 && f.wire === 2);
    if (error !== undefined) {
      const parts = readFields(error.value as Buffer);
      const code = parts.find((p) => p.no === 1);
      const message = parts.find((p) => p.no === 2);
      return {
        kind: 'error',
        message: `daemon error ${code === undefined ? '' : varintOf(code)}: ${message === undefined ? '' : stringOf(message)}`,
      };
    }
    return { kind: 'other' };
  }

  /** Events of a message the daemon sent without a timestamp are marked as timed at arrival. */
  private stampedOrMarked(msg: AgentEventMsg): ParseResult {
    const result = this.apply(msg);
    return result.ok && parseRfc3339(msg.timestamp) === undefined
      ? { ...result, events: markArrivalTimed(result.events) }
      : result;
  }

  private apply(msg: AgentEventMsg): ParseResult {
    const kind = KINDS[msg.kind];
    if (kind === undefined) return ignoredVariant('crabtalk', `kind ${msg.kind}`);
    const key = `${msg.agent}\0${msg.sender}`;
    let conversation = this.conversations.get(key);
    if (conversation === undefined) {
      conversation = new CrabtalkConversation(
        msg.sender === '' ? undefined : msg.sender,
        msg.agent === '' ? {} : { 'crabtalk.agent': msg.agent },
        this.maxJsonDepth,
      );
      this.conversations.set(key, conversation);
      if (this.conversations.size > MAX_CONVERSATIONS) {
        const oldest = this.conversations.keys().next();
        if (oldest.done !== true) this.conversations.delete(oldest.value);
      }
    }
    const stamped = parseRfc3339(msg.timestamp);
    const t = stamped ?? this.arrival();
    conversation.see(msg, stamped);
    switch (kind) {
      case 'TEXT_DELTA':
        return accepted(kind, ...conversation.textDelta(t, msg.content));
      case 'THINKING_DELTA':
      case 'TEXT_START':
      case 'TEXT_END':
      case 'THINKING_START':
      case 'THINKING_END':
        return accepted(kind, ...conversation.output(t));
      case 'TOOL_START':
        return accepted(kind, ...conversation.toolCalls(t, msg.toolCalls));
      case 'TOOL_RESULT': {
        const millis = /^(\d+(?:\.\d+)?)\s*ms$/.exec(msg.content.trim());
        return accepted(
          kind,
          ...conversation.toolResult(t, {
            output: msg.toolOutput,
            isError: msg.toolIsError,
            durationMs: millis === null ? undefined : Math.round(Number(millis[1])),
          }),
        );
      }
      case 'TOOLS_COMPLETE':
        return accepted(kind, ...conversation.toolsComplete());
      case 'DONE':
        return accepted(kind, ...conversation.done(t, {}));
    }
  }
}
