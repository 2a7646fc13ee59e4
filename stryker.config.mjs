// Mutation testing of the mapping and the partition protocol: `npm run mutation` runs both scopes
// (on demand, not in CI: it takes long); `MUTATE_SCOPE=partitions|mapping npx stryker run` one.
// The last scores and the surviving mutants' triage are in docs/mutation-testing.md.
import process from 'node:process';

const scope = process.env.MUTATE_SCOPE === 'partitions' ? 'partitions' : 'mapping';

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate:
    scope === 'partitions'
      ? ['src/partitions/**/*.ts']
      : ['src/mapping/**/*.ts', '!src/mapping/privacy/**/*.ts'],
  coverageAnalysis: 'perTest',
  // Module-level constants (the attribute and metric names of semconv.ts above all) would each
  // need the whole suite; the names are pinned by the golden tests and the registry check.
  ignoreStatic: true,
  checkers: [],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${scope}.json` },
  concurrency: 2,
  timeoutMS: 20_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
