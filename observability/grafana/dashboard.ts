// The "Agent runs" Grafana dashboard, as code. `node observability/grafana/dashboard.ts` writes
// dashboards/agent-runs.json (committed; a test checks that it matches this generator).
import { writeFileSync } from 'node:fs';
import {
  AnnotationQueryBuilder,
  DashboardBuilder,
  DashboardLinkBuilder,
  DashboardLinkType,
  QueryVariableBuilder,
  RowBuilder,
  TextBoxVariableBuilder,
  VariableRefresh,
} from '@grafana/grafana-foundation-sdk/dashboard';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries';

const PROMETHEUS = { type: 'prometheus', uid: 'prometheus' };
// The service is a variable (OTEL_SERVICE_NAME may name it otherwise). Jaeger's tag search is
// literal: one link filters by the selected agent (pick one), the other shows all of the service.
const JAEGER = 'http://localhost:16686/search?service=${service}';
const JAEGER_AGENT = `${JAEGER}&tags=%7B%22gen_ai.agent.name%22%3A%22\${agent}%22%7D`;

/** Duration histograms: `_seconds` from the collector's Prometheus exporter, none from the bridge's endpoint. */
const seconds = (metric: string, selector: string) =>
  `{__name__=~"${metric}(_seconds)?_bucket"${selector === '' ? '' : `, ${selector}`}}`;
/**
 * A counter's (or a histogram bucket's) growth over `window`, counting a series born within the
 * window from zero: a batch `ingest` exports its totals once, and a process restarted under a new
 * service.instance.id starts new series, whose first value `increase()` alone misses. A series
 * that restarted in place (a counter reset) is left to `increase()`. Quantiles take it in place of
 * `rate()` (they do not depend on the window's length). Same as the alert rules.
 */
const counted = (selector: string, window: string) =>
  `(((min_over_time(${selector}[${window}]) + increase(${selector}[${window}])) unless ${selector} offset ${window} unless resets(${selector}[${window}]) > 0) or increase(${selector}[${window}]))`;
const AGENT = 'gen_ai_agent_name=~"$agent"';
const MODEL = 'gen_ai_provider_name=~"$provider", gen_ai_request_model=~"$model"';
const TOOL = 'gen_ai_tool_name=~"$tool"';
/** Input tokens by model, cached ones included (the cache hit ratio's denominator). */
const inputTokens = `sum by (gen_ai_request_model) (${counted(`agent_tokens_total{agent_token_class=~"input|cache_read|cache_write", ${AGENT}, ${MODEL}}`, '$__rate_interval')})`;

export interface PanelQuery {
  readonly panel: string;
  readonly expr: string;
}

const q = (expr: string, legend: string) =>
  new DataqueryBuilder().datasource(PROMETHEUS).expr(expr).legendFormat(legend);
const jaegerLink = () => [
  new DashboardLinkBuilder('Traces of the service in Jaeger')
    .type(DashboardLinkType.Link)
    .url(JAEGER),
  new DashboardLinkBuilder('Traces of the selected agent in Jaeger (one agent selected)')
    .type(DashboardLinkType.Link)
    .url(JAEGER_AGENT),
];

const timeseries = (
  title: string,
  unit: string,
  targets: DataqueryBuilder[],
  description: string,
) => {
  const panel = new TimeseriesPanel()
    .title(title)
    .unit(unit)
    .description(description)
    .datasource(PROMETHEUS)
    .links(jaegerLink())
    .height(8)
    .span(12);
  for (const target of targets) panel.withTarget(target);
  return panel;
};

export function buildDashboard(): Dashboard {
  const variable = (name: string, label: string, query: string) =>
    new QueryVariableBuilder(name)
      .label(label)
      .datasource(PROMETHEUS)
      .query(query)
      .definition(query)
      .refresh(VariableRefresh.OnTimeRangeChanged)
      .includeAll(true)
      .multi(true)
      .allValue('.*');
  return new DashboardBuilder('Agent runs')
    .uid('agent-otel-bridge-runs')
    .tags(['agents', 'opentelemetry', 'agent-otel-bridge'])
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .withVariable(
      new TextBoxVariableBuilder('service')
        .label('Service (Jaeger)')
        .description('service.name of the bridge (OTEL_SERVICE_NAME), for the trace links')
        .defaultValue('agent-otel-bridge'),
    )
    .withVariable(variable('agent', 'Agent', 'label_values(agent_runs_total, gen_ai_agent_name)'))
    .withVariable(
      variable(
        'provider',
        'Provider',
        'label_values(gen_ai_client_token_usage_count, gen_ai_provider_name)',
      ),
    )
    .withVariable(
      variable(
        'model',
        'Model',
        'label_values(gen_ai_client_token_usage_count, gen_ai_request_model)',
      ),
    )
    .withVariable(
      variable('tool', 'Tool', 'label_values(agent_tool_calls_total, gen_ai_tool_name)'),
    )
    .annotation(
      new AnnotationQueryBuilder()
        .name('Doom loops')
        .datasource(PROMETHEUS)
        .enable(true)
        .iconColor('red')
        .target(
          q(
            `sum by (gen_ai_agent_name) (${counted(`agent_doom_loops_total{${AGENT}}`, '2m')}) > 0`,
            'doom loop in {{gen_ai_agent_name}}',
          ),
        ),
    )
    .annotation(
      new AnnotationQueryBuilder()
        .name('Compaction breaker trips')
        .datasource(PROMETHEUS)
        .enable(true)
        .iconColor('orange')
        .target(
          q(
            `sum by (gen_ai_agent_name) (${counted(`agent_compaction_circuit_breaker_opened_total{${AGENT}}`, '2m')}) > 0`,
            'breaker opened in {{gen_ai_agent_name}}',
          ),
        ),
    )
    .link(new DashboardLinkBuilder('Jaeger').type(DashboardLinkType.Link).url(JAEGER))
    .withRow(new RowBuilder('Runs'))
    .withPanel(
      timeseries(
        'Runs by outcome',
        'short',
        [
          q(
            `sum by (agent_run_outcome) (${counted(`agent_runs_total{${AGENT}}`, '$__rate_interval')})`,
            '{{agent_run_outcome}}',
          ),
        ],
        'Finished runs per interval: completed, failed, cancelled, abandoned.',
      ),
    )
    .withPanel(
      new StatPanel()
        .title('Failure ratio')
        .description('Share of finished runs that failed over the time range.')
        .unit('percentunit')
        .datasource(PROMETHEUS)
        .height(8)
        .span(6)
        .withTarget(
          q(
            `sum(${counted(`agent_runs_total{agent_run_outcome="failed", ${AGENT}}`, '$__range')}) / sum(${counted(`agent_runs_total{${AGENT}}`, '$__range')})`,
            'failed',
          ),
        ),
    )
    .withPanel(
      new StatPanel()
        .title('Active runs')
        .description('Runs in progress now.')
        .unit('short')
        .datasource(PROMETHEUS)
        .height(8)
        .span(6)
        .withTarget(q(`sum(agent_runs_active{${AGENT}})`, 'active')),
    )
    .withPanel(
      timeseries(
        'Doom loops and breaker trips',
        'short',
        [
          q(
            `sum by (gen_ai_agent_name) (${counted(`agent_doom_loops_total{${AGENT}}`, '$__rate_interval')})`,
            'doom loops {{gen_ai_agent_name}}',
          ),
          q(
            `sum by (gen_ai_agent_name) (${counted(`agent_compaction_circuit_breaker_opened_total{${AGENT}}`, '$__rate_interval')})`,
            'breaker trips {{gen_ai_agent_name}}',
          ),
        ],
        'Doom loops the runtime detected and compaction circuit-breaker trips; both also show as annotations.',
      ),
    )
    .withPanel(
      timeseries(
        'Iterations per run',
        'short',
        [
          q(
            `histogram_quantile(0.5, sum by (le) (${counted(`agent_iterations_bucket{${AGENT}}`, '$__rate_interval')}))`,
            'p50',
          ),
          q(
            `histogram_quantile(0.95, sum by (le) (${counted(`agent_iterations_bucket{${AGENT}}`, '$__rate_interval')}))`,
            'p95',
          ),
        ],
        'Model iterations per finished run.',
      ),
    )
    .withRow(new RowBuilder('Models'))
    .withPanel(
      timeseries(
        'Token usage by model and type',
        'short',
        [
          q(
            `sum by (gen_ai_request_model, gen_ai_token_type) (${counted(`gen_ai_client_token_usage_sum{${MODEL}}`, '$__rate_interval')})`,
            '{{gen_ai_request_model}} {{gen_ai_token_type}}',
          ),
        ],
        'Tokens per interval, by model and token type (input, output).',
      ),
    )
    .withPanel(
      timeseries(
        'Model latency',
        's',
        ['0.5', '0.95', '0.99'].map((p) =>
          q(
            `histogram_quantile(${p}, sum by (le, gen_ai_request_model) (${counted(seconds('gen_ai_client_operation_duration', MODEL), '$__rate_interval')}))`,
            `p${Number(p) * 100} {{gen_ai_request_model}}`,
          ),
        ),
        'Model call duration, p50/p95/p99 by model.',
      ),
    )
    .withPanel(
      timeseries(
        'Time to first chunk',
        's',
        ['0.5', '0.95'].map((p) =>
          q(
            `histogram_quantile(${p}, sum by (le, gen_ai_request_model) (${counted(seconds('gen_ai_client_operation_time_to_first_chunk', MODEL), '$__rate_interval')}))`,
            `p${Number(p) * 100} {{gen_ai_request_model}}`,
          ),
        ),
        'From the start of a model call to its first streamed chunk.',
      ),
    )
    .withRow(new RowBuilder('Cost'))
    .withPanel(
      timeseries(
        'Cost by model',
        'currencyUSD',
        [
          q(
            `sum by (gen_ai_provider_name, gen_ai_request_model) (${counted(`agent_cost_usd_total{${AGENT}, ${MODEL}}`, '$__rate_interval')})`,
            '{{gen_ai_provider_name}}/{{gen_ai_request_model}}',
          ),
        ],
        'US dollars per interval of priced model calls, by model (agent.cost.usd). Unpriced calls are not in it: see "Unpriced tokens".',
      ),
    )
    .withPanel(
      timeseries(
        'Cost by agent',
        'currencyUSD',
        [
          q(
            `sum by (gen_ai_agent_name) (${counted(`agent_cost_usd_total{${AGENT}, ${MODEL}}`, '$__rate_interval')})`,
            '{{gen_ai_agent_name}}',
          ),
        ],
        'US dollars per interval of priced model calls, by agent.',
      ),
    )
    .withPanel(
      new StatPanel()
        .title('Unpriced tokens')
        .description(
          'Share of tokens over the time range whose model no price table knows: their cost is missing from the cost panels, not $0. Add them to a price file (--prices).',
        )
        .unit('percentunit')
        .datasource(PROMETHEUS)
        .height(8)
        .span(6)
        .withTarget(
          q(
            `(sum(${counted(`agent_tokens_total{agent_cost_status="unpriced", ${AGENT}, ${MODEL}}`, '$__range')}) or vector(0)) / sum(${counted(`agent_tokens_total{${AGENT}, ${MODEL}}`, '$__range')})`,
            'unpriced',
          ),
        ),
    )
    .withPanel(
      timeseries(
        'Cache hit ratio',
        'percentunit',
        [
          q(
            // A model with no cache reads at all reads 0, not "no data".
            `(sum by (gen_ai_request_model) (${counted(`agent_tokens_total{agent_token_class="cache_read", ${AGENT}, ${MODEL}}`, '$__rate_interval')}) or 0 * ${inputTokens}) / ${inputTokens}`,
            '{{gen_ai_request_model}}',
          ),
        ],
        "Share of input tokens read from the provider's cache, by model.",
      ),
    )
    .withRow(new RowBuilder('Tools'))
    .withPanel(
      timeseries(
        'Tool duration p95',
        's',
        [
          q(
            `histogram_quantile(0.95, sum by (le, gen_ai_tool_name) (${counted(seconds('gen_ai_execute_tool_duration', TOOL), '$__rate_interval')}))`,
            '{{gen_ai_tool_name}}',
          ),
        ],
        'p95 of tool execution time, per tool.',
      ),
    )
    .withPanel(
      timeseries(
        'Tool error ratio',
        'percentunit',
        [
          q(
            `sum by (gen_ai_tool_name) (${counted(`agent_tool_calls_total{agent_tool_outcome="failure", ${TOOL}}`, '$__rate_interval')}) / sum by (gen_ai_tool_name) (${counted(`agent_tool_calls_total{${TOOL}}`, '$__rate_interval')})`,
            '{{gen_ai_tool_name}}',
          ),
        ],
        'Share of executions that failed, per tool.',
      ),
    )
    .withPanel(
      new TablePanel()
        .title('Slowest tools')
        .description('Top 10 tools by p95 duration over the time range.')
        .unit('s')
        .datasource(PROMETHEUS)
        .height(8)
        .span(12)
        .withTarget(
          q(
            `topk(10, histogram_quantile(0.95, sum by (le, gen_ai_tool_name) (${counted(seconds('gen_ai_execute_tool_duration', TOOL), '$__range')})))`,
            '{{gen_ai_tool_name}}',
          ).instant(),
        ),
    )
    .withRow(new RowBuilder('Bridge health'))
    .withPanel(
      timeseries(
        'Input events by outcome',
        'short',
        [
          q(
            `sum by (agent_bridge_dialect, agent_bridge_event_outcome) (${counted('agent_bridge_events_total', '$__rate_interval')})`,
            '{{agent_bridge_dialect}} {{agent_bridge_event_outcome}}',
          ),
        ],
        'Events per interval the bridge accepted, rejected, ignored, or found late or duplicate.',
      ),
    )
    .withPanel(
      timeseries(
        'Runs evicted',
        'short',
        [
          q(
            `sum by (agent_bridge_reason) (${counted('agent_bridge_runs_evicted_total', '$__rate_interval')})`,
            '{{agent_bridge_reason}}',
          ),
        ],
        'Runs the bridge ended as abandoned: idle timeout, capacity, end of input, shutdown.',
      ),
    )
    .build();
}

/** Every panel's PromQL, for tests that run them against Prometheus. */
export function panelQueries(dashboard: Dashboard): PanelQuery[] {
  return (dashboard.panels ?? []).flatMap((panel) =>
    'targets' in panel
      ? (panel.targets ?? []).map((t) => ({
          panel: panel.title ?? '',
          expr: (t as unknown as { expr: string }).expr,
        }))
      : [],
  );
}

export function toJson(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

if (process.argv[1]?.endsWith('dashboard.ts')) {
  writeFileSync(new URL('./dashboards/agent-runs.json', import.meta.url), toJson(buildDashboard()));
}
