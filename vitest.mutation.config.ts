// The tests a mutation run executes (`npm run mutation`, see stryker.config.mjs): the in-process
// ones that reach its scope. The end-to-end tests run the built CLI, which a mutant of src/ never
// reaches. MUTATE_SCOPE: `partitions` or `mapping`.
import { defineConfig } from 'vitest/config';

const scope = process.env.MUTATE_SCOPE === 'partitions' ? 'partitions' : 'mapping';

export default defineConfig({
  test: {
    include:
      scope === 'partitions'
        ? ['test/partitions/**/*.test.ts']
        : [
            'test/mapping/**/*.test.ts',
            'test/golden/**/*.test.ts',
            'test/sink/**/*.test.ts',
            'test/dialects/**/*.test.ts',
            'test/events/**/*.test.ts',
            'test/telemetry/run-sampling.test.ts',
            // The routing of `ingest --workers` and the line reader it asks (in process).
            'test/cli/input-router.test.ts',
            'test/sources/ndjson-lines.test.ts',
            'test/sources/fuzz.test.ts',
          ],
    exclude: [
      // A timing ratio and a 10 000-case generator: the scrub layer's own proofs, at minutes a
      // mutant; the privacy layer's mutants are killed by the scrub table and examples.
      'test/mapping/privacy/scrub-linear.test.ts',
      'test/mapping/privacy/secrets-property.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
