// Which starts of the CLI are worth a second start with a larger young generation, on generated
// command lines: the command decides, and for files the total size of those named, whatever the
// options around them and their order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_OPTIONS } from '../../src/cli/usage.js';
import {
  LARGE_INPUT_BYTES,
  SEMI_SPACE_FLAG,
  STDIN,
  WORKER_YOUNG_GENERATION_MIB,
  sizeChosen,
  workerResourceLimits,
  wantsLargeYoungGeneration,
} from '../../src/cli/young-generation.js';

const COMMANDS = Object.keys(COMMAND_OPTIONS);
const LONG_RUNNING = ['crabtalk', 'nats', 'redis', 'route', 'serve'];
const OPTIONS = ['--quiet', '--json', '--strict', '--dialect', 'behest', '--workers', '2', '-q'];

/** A command line: options before and after the command, files (with sizes) among them. */
const commandLine = fc.record({
  command: fc.constantFrom(...COMMANDS),
  before: fc.array(fc.constantFrom('--quiet', '--json', '-q'), { maxLength: 2 }),
  after: fc.array(
    fc.oneof(
      fc.constantFrom(...OPTIONS),
      fc.record({
        name: fc.stringMatching(/^[a-z]{1,8}\.ndjson$/),
        size: fc.integer({ min: 0, max: LARGE_INPUT_BYTES }),
      }),
    ),
    { maxLength: 6 },
  ),
});

type CommandLine = typeof commandLine extends fc.Arbitrary<infer T> ? T : never;

/** The decision on the line, and the total size of the files it names. */
function decide(line: CommandLine): { wants: boolean; bytes: number } {
  const sizes = new Map<string, number>();
  const args = [
    ...line.before,
    line.command,
    ...line.after.map((a) => {
      if (typeof a === 'string') return a;
      const name = `${sizes.size}-${a.name}`;
      sizes.set(name, a.size);
      return name;
    }),
  ];
  const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  return {
    wants: wantsLargeYoungGeneration(args, (path) => sizes.get(path)),
    bytes,
  };
}

describe('wantsLargeYoungGeneration', () => {
  it("names only the CLI's own commands", () => {
    for (const command of [...LONG_RUNNING, 'ingest', 'validate'])
      expect(COMMANDS, command).toContain(command);
  });

  it('says yes to every command that runs until stopped, and no to the short ones', () => {
    fc.assert(
      fc.property(commandLine, (line) => {
        const { wants, bytes } = decide(line);
        if (LONG_RUNNING.includes(line.command)) expect(wants).toBe(true);
        else if (line.command === 'ingest' || line.command === 'validate')
          expect(wants).toBe(bytes >= LARGE_INPUT_BYTES);
        else expect(wants).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('says yes to ingest --follow, whatever the files', () => {
    fc.assert(
      fc.property(commandLine, fc.constantFrom('--follow', '-f'), (line, follow) => {
        const sizes = () => 0;
        expect(wantsLargeYoungGeneration(['ingest', follow, 'a.ndjson'], sizes)).toBe(true);
        expect(wantsLargeYoungGeneration([...line.before, 'ingest', follow], sizes)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('counts stdin, where it is a file, when no file is named or `-` is', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('ingest', 'validate'),
        fc.integer({ min: 0, max: 2 * LARGE_INPUT_BYTES }),
        fc.integer({ min: 0, max: 2 * LARGE_INPUT_BYTES }),
        fc.array(fc.constantFrom('--quiet', '--dialect', 'behest', '-'), { maxLength: 4 }),
        fc.boolean(),
        (command, stdin, file, options, named) => {
          const sizes = new Map([
            [STDIN, stdin],
            ['a.ndjson', file],
          ]);
          const args = [command, ...options, ...(named ? ['a.ndjson'] : [])];
          const read = !named || options.includes(STDIN);
          const bytes = (named ? file : 0) + (read ? stdin : 0);
          expect(wantsLargeYoungGeneration(args, (p) => sizes.get(p))).toBe(
            bytes >= LARGE_INPUT_BYTES,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts only what names a file (stdin, missing files and option values count nothing)', () => {
    const none = () => undefined;
    expect(wantsLargeYoungGeneration(['ingest'], none)).toBe(false);
    expect(wantsLargeYoungGeneration(['ingest', '-'], none)).toBe(false);
    expect(wantsLargeYoungGeneration(['ingest', 'missing.ndjson'], none)).toBe(false);
    expect(wantsLargeYoungGeneration([], none)).toBe(false);
    expect(wantsLargeYoungGeneration(['--help'], none)).toBe(false);
  });
});

describe('sizeChosen', () => {
  it("finds the user's own size in the command line or in NODE_OPTIONS, in either spelling", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('--max-semi-space-size', '--max_semi_space_size', '--max-semi_space-size'),
        fc.integer({ min: 1, max: 256 }),
        fc.array(fc.constantFrom('--enable-source-maps', '--max-old-space-size=4096', '--inspect')),
        fc.boolean(),
        (flag, size, others, inEnv) => {
          const given = [...others, `${flag}=${size}`];
          const chosen = inEnv ? sizeChosen(others, given.join(' ')) : sizeChosen(given, undefined);
          expect(chosen).toBe(true);
          expect(sizeChosen(others, others.join(' '))).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('workerResourceLimits', () => {
  it("gives a worker the CLI's semi-spaces, its own second start's flag included, unless the user chose a size", () => {
    const ours = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MIB };
    expect(workerResourceLimits([], undefined)).toEqual(ours);
    expect(workerResourceLimits([SEMI_SPACE_FLAG], '--enable-source-maps')).toEqual(ours);
    expect(workerResourceLimits(['--max-semi-space-size=8'], undefined)).toBeUndefined();
    expect(workerResourceLimits([SEMI_SPACE_FLAG], '--max_semi_space_size=8')).toBeUndefined();
  });
});
