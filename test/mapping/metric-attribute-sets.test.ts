// The mapping's metric attribute sets are made once and handed out again (metric-attribute-sets.ts),
// and the label budget answers a set it has seen by its identity (label-budget.ts). Held, on
// generated values and record sequences, to the sets written out from the contract's attribute
// names (docs/telemetry-contract.md, "Metrics") and to a budget given a fresh copy every time.
import fc from 'fast-check';
import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LabelBudget } from '../../src/mapping/metrics/label-budget.js';
import { MetricAttributeSets } from '../../src/mapping/metrics/metric-attribute-sets.js';
import { sharedSet } from '../helpers/shared-sets.js';

const name = fc.option(fc.constantFrom('a', 'b', 'openai', 'gpt-4o', '', '_OTHER'), {
  nil: undefined,
});
const given = fc.constantFrom('a', 'b', 'failure', 'timeout', 'x');

/** The set written out: the names given with a value, in the order given. */
const written = (...entries: [string, string | undefined][]): Attributes =>
  Object.fromEntries(entries.filter(([, value]) => value !== undefined));

describe('metric attribute sets', () => {
  it('hands out one frozen set per shape and values, equal to the set written out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, name, name, given, given, name, fc.boolean()), {
          minLength: 1,
          maxLength: 40,
        }),
        (calls) => {
          const sets = new MetricAttributeSets();
          const seen = new Map<string, Attributes>();
          for (const [agentName, provider, model, first, second, errorType, latest] of calls) {
            const m = { provider, model };
            const chat: [string, string | undefined][] = [
              ['gen_ai.operation.name', 'chat'],
              ['gen_ai.provider.name', provider],
              ['gen_ai.request.model', model],
            ];
            const agent: [string, string | undefined][] = [
              ['gen_ai.agent.name', agentName],
              ['gen_ai.provider.name', provider],
              ['gen_ai.request.model', model],
            ];
            const cases: [string, Attributes, Attributes][] = [
              ['chat', sets.chat(m, errorType), written(...chat, ['error.type', errorType])],
              [
                'chatTokens',
                sets.chatTokens(m, first),
                written(...chat, ['gen_ai.token.type', first]),
              ],
              [
                'inferenceUsage',
                sets.inferenceUsage(m),
                written(...chat, ['gen_ai.token.modality', 'unknown']),
              ],
              ['agent', sets.agent(agentName, m), written(...agent)],
              ['agent alone', sets.agent(agentName), written(['gen_ai.agent.name', agentName])],
              [
                'agentTokens',
                sets.agentTokens(agentName, m, first, second),
                written(...agent, ['agent.token.class', first], ['agent.cost.status', second]),
              ],
              [
                'runOutcome',
                sets.runOutcome(agentName, m, first, errorType),
                written(...agent, ['agent.run.outcome', first], ['error.type', errorType]),
              ],
              [
                'tool',
                sets.tool(first, second, errorType, latest, agentName),
                written(
                  ['gen_ai.tool.name', first],
                  ['agent.tool.outcome', second],
                  ['error.type', errorType],
                  ...((latest
                    ? [
                        ['gen_ai.tool.type', 'function'],
                        ['gen_ai.agent.name', agentName],
                      ]
                    : []) as [string, string | undefined][]),
                ),
              ],
            ];
            for (const [shape, set, expected] of cases) {
              expect(set).toStrictEqual(expected);
              expect(Object.keys(set)).toStrictEqual(Object.keys(expected));
              expect(Object.isFrozen(set)).toBe(true);
              // The same shape and values: the identical object, every time.
              const key = `${shape}|${JSON.stringify(set)}`;
              const before = seen.get(key);
              if (before === undefined) seen.set(key, set);
              else expect(set).toBe(before);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('starts over past 4 096 sets: a set asked for again is equal, no longer identical', () => {
    const sets = new MetricAttributeSets();
    const first = sets.agent('agent-0');
    for (let n = 1; n < 4096; n += 1) sets.agent(`agent-${n}`);
    expect(sets.agent('agent-0')).toBe(first);
    sets.agent('agent-4096');
    const again = sets.agent('agent-0');
    expect(again).not.toBe(first);
    expect(again).toStrictEqual(first);
  });
});

const KEYS = ['gen_ai.agent.name', 'gen_ai.provider.name', 'gen_ai.request.model', 'n'];
const set = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom('a', 'b', 'c', 'd', 'e', 1)), {
    selector: ([key]) => key,
    maxLength: 4,
  })
  .map((entries) => Object.fromEntries(entries) as Attributes);

describe('the label budget', () => {
  it('answers a frozen set it has seen as it answers a fresh copy of it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.tuple(set, fc.boolean()), { maxLength: 60 }),
        (limit, records) => {
          let sharedOverflows = 0;
          let freshOverflows = 0;
          const shared = new LabelBudget(limit, () => (sharedOverflows += 1));
          const fresh = new LabelBudget(limit, () => (freshOverflows += 1));
          const made = new Map<string, Attributes>();
          const answers = new Map<Attributes, Attributes | undefined>();
          for (const [attributes, frozen] of records) {
            const givenSet = frozen ? sharedSet(made, attributes) : { ...attributes };
            const answer = shared.bound(givenSet);
            if (frozen) {
              // A shared set's answer is one frozen object, the same every time.
              expect(Object.isFrozen(answer)).toBe(true);
              if (answers.has(givenSet)) expect(answer).toBe(answers.get(givenSet));
              answers.set(givenSet, answer);
            }
            expect(answer).toStrictEqual(fresh.bound({ ...attributes }));
            expect(sharedOverflows).toBe(freshOverflows);
            // A set within the budget is recorded as given; one over it never changes in place.
            if (answer === givenSet) expect(answer).toStrictEqual(attributes);
            else expect(givenSet).toStrictEqual(attributes);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
