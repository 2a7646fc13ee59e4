import type { Attributes } from '@opentelemetry/api';
import * as S from '../semconv.js';

/** Low-cardinality facts about a model: the only things metric attributes are built from. */
export interface ModelIdentity {
  readonly provider: string | undefined;
  readonly model: string | undefined;
}

type Value = string | undefined;
type Make = (a: Value, b: Value, c: Value, d: Value, e: Value) => Attributes;

/** Attribute sets kept before the memory starts over (runtime names make them unbounded). */
const MAX_SETS = 4096;

/**
 * The mapping's metric attribute sets (a whitelist of low-cardinality names), each made once and
 * handed out again for the same values: a model call, a tool or a run records the same few sets
 * over and over, and the label budget and the bridge's tallies know a set they have seen by its
 * identity, without reading its attributes again. A set handed out is frozen (shared by every
 * record that names it). Sets are kept by their values in a tree of maps, one per shape; past
 * `MAX_SETS` the memory starts over (a set made again is equal, only not identical).
 */
export class MetricAttributeSets {
  private readonly roots = new Map<Make, Map<Value, unknown>>();
  private size = 0;

  /** `gen_ai.client.*` attributes of a model call: operation, provider, model, error type. */
  chat(model: ModelIdentity, errorType?: string): Attributes {
    return this.find(chat, model.provider, model.model, errorType, undefined, undefined);
  }

  /** A model call's attributes (no error type) with `gen_ai.token.type`. */
  chatTokens(model: ModelIdentity, tokenType: string): Attributes {
    return this.find(chatTokens, model.provider, model.model, tokenType, undefined, undefined);
  }

  /** The current conventions' usage counters: a model call's (no error type), modality unknown. */
  inferenceUsage(model: ModelIdentity): Attributes {
    return this.find(inferenceUsage, model.provider, model.model, undefined, undefined, undefined);
  }

  /** An agent and its model on run-level metrics. */
  agent(agentName: string | undefined, model?: ModelIdentity): Attributes {
    return this.find(agent, agentName, model?.provider, model?.model, undefined, undefined);
  }

  /** `agent.tokens`: the agent's attributes, the pricing class and whether the call was priced. */
  agentTokens(
    agentName: string | undefined,
    model: ModelIdentity,
    tokenClass: string,
    status: string,
  ): Attributes {
    return this.find(agentTokens, agentName, model.provider, model.model, tokenClass, status);
  }

  /** A finished run: the agent's attributes, its outcome and (on its duration) its error type. */
  runOutcome(
    agentName: string | undefined,
    model: ModelIdentity | undefined,
    outcome: string,
    errorType?: string,
  ): Attributes {
    return this.find(runOutcome, agentName, model?.provider, model?.model, outcome, errorType);
  }

  /** A finished tool: its name, outcome and error type; under the latest conventions, its type and agent. */
  tool(
    name: string,
    outcome: string,
    errorType: string | undefined,
    latest: boolean,
    agentName: string | undefined,
  ): Attributes {
    return latest
      ? this.find(toolLatest, name, outcome, errorType, agentName, undefined)
      : this.find(tool, name, outcome, errorType, undefined, undefined);
  }

  private find(make: Make, a: Value, b: Value, c: Value, d: Value, e: Value): Attributes {
    let level = this.roots.get(make);
    if (level === undefined) {
      level = new Map();
      this.roots.set(make, level);
    }
    const l2 = step(level, a);
    const l3 = step(l2, b);
    const l4 = step(l3, c);
    const l5 = step(l4, d);
    let set = l5.get(e) as Attributes | undefined;
    if (set === undefined) {
      if (this.size >= MAX_SETS) {
        this.roots.clear();
        this.size = 0;
        return this.find(make, a, b, c, d, e);
      }
      set = Object.freeze(make(a, b, c, d, e));
      l5.set(e, set);
      this.size += 1;
    }
    return set;
  }
}

function step(level: Map<Value, unknown>, value: Value): Map<Value, unknown> {
  let next = level.get(value) as Map<Value, unknown> | undefined;
  if (next === undefined) {
    next = new Map();
    level.set(value, next);
  }
  return next;
}

const chat: Make = (provider, model, errorType) => {
  const attributes: Attributes = { [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_CHAT };
  if (provider !== undefined) attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = provider;
  if (model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model;
  if (errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = errorType;
  return attributes;
};

const chatTokens: Make = (provider, model, tokenType) => {
  const attributes = chat(provider, model, undefined, undefined, undefined);
  attributes[S.ATTR_GEN_AI_TOKEN_TYPE] = tokenType;
  return attributes;
};

const inferenceUsage: Make = (provider, model) => {
  const attributes = chat(provider, model, undefined, undefined, undefined);
  attributes[S.ATTR_GEN_AI_TOKEN_MODALITY] = S.GEN_AI_TOKEN_MODALITY_UNKNOWN;
  return attributes;
};

const agent: Make = (agentName, provider, model) => {
  const attributes: Attributes = {};
  if (agentName !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (provider !== undefined) attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = provider;
  if (model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model;
  return attributes;
};

const agentTokens: Make = (agentName, provider, model, tokenClass, status) => {
  const attributes = agent(agentName, provider, model, undefined, undefined);
  attributes[S.ATTR_AGENT_TOKEN_CLASS] = tokenClass;
  attributes[S.ATTR_AGENT_COST_STATUS] = status;
  return attributes;
};

const runOutcome: Make = (agentName, provider, model, outcome, errorType) => {
  const attributes = agent(agentName, provider, model, undefined, undefined);
  attributes[S.ATTR_AGENT_RUN_OUTCOME] = outcome;
  if (errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = errorType;
  return attributes;
};

const tool: Make = (name, outcome, errorType) => {
  const attributes: Attributes = {
    [S.ATTR_GEN_AI_TOOL_NAME]: name,
    [S.ATTR_AGENT_TOOL_OUTCOME]: outcome,
  };
  if (errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = errorType;
  return attributes;
};

const toolLatest: Make = (name, outcome, errorType, agentName) => {
  const attributes = tool(name, outcome, errorType, undefined, undefined);
  attributes[S.ATTR_GEN_AI_TOOL_TYPE] = S.GEN_AI_TOOL_TYPE_FUNCTION;
  if (agentName !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = agentName;
  return attributes;
};
