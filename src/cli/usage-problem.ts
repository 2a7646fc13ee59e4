import { isCommandName } from './usage.js';

/** A parser error as one line that says what to do: the option and where its command's help is. */
export function usageProblem(error: unknown, argv: readonly string[]): string {
  const text = error instanceof Error ? error.message : String(error);
  const command = argv.find((a) => !a.startsWith('-'));
  const help =
    command !== undefined && isCommandName(command)
      ? `agent-otel-bridge ${command} --help`
      : 'agent-otel-bridge help';
  const unknown = /Unknown option '([^']+)'/.exec(text);
  if (unknown !== null) return `unknown option ${unknown[1]}; see '${help}'`;
  const missing = /Option '(-\S+)(?:, -\S+)?[^']*' argument missing/.exec(text);
  if (missing !== null) return `${missing[1]} needs a value; see '${help}'`;
  return `${text.split('. ')[0]}; see '${help}'`;
}
