import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layering, as a build failure (docs/architecture.md): dependencies point one way,
// cli → sources/partitions/checkpoints → sink → mapping → pricing → events, with dialects/ beside
// mapping/ on events/; only telemetry/ knows the OpenTelemetry SDK and its exporters.
const SRC_FOLDERS = [
  'events',
  'pricing',
  'dialects',
  'mapping',
  'sink',
  'telemetry',
  'sources',
  'partitions',
  'checkpoints',
  'cli',
];
const SDK_PACKAGES = ['@opentelemetry/*', '!@opentelemetry/api', '@grpc/*'];
const BROKER_PACKAGES = ['redis', '@nats-io/*'];

/** A fence: files under `folder` may not import the given folders (and root files) or packages. */
function fence(folder, { folders = [], rootFiles = [], packages = [], message }) {
  const patterns = [
    ...folders.map((f) => ({
      group: [`**/${f}/**`, `**/${f}`],
      message: `${folder}/ may not import ${f}/: ${message}`,
    })),
    ...rootFiles.map((f) => ({
      group: [`../${f}`, `../../${f}`, `../../../${f}`],
      message: `${folder}/ may not import src/${f}: ${message}`,
    })),
    ...(packages.length === 0 ? [] : [{ group: packages, message: `${folder}/: ${message}` }]),
  ];
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  };
}
const above = (...allowed) => SRC_FOLDERS.filter((f) => !allowed.includes(f));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.toolchain/', 'coverage/', 'reports/', '.stryker-tmp*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Export names explicitly.' },
      ],
    },
  },
  fence('events', {
    folders: above('events'),
    rootFiles: ['config.js', 'sink-options.js', 'index.js'],
    packages: [...SDK_PACKAGES, ...BROKER_PACKAGES, 'zod'],
    message: 'events/ is the bottom layer: the OpenTelemetry API and nothing else.',
  }),
  fence('pricing', {
    folders: above('events', 'pricing'),
    rootFiles: ['config.js', 'sink-options.js', 'index.js'],
    packages: ['@opentelemetry/*', '@grpc/*', ...BROKER_PACKAGES, 'zod'],
    message:
      'pricing/ turns tokens into dollars from price tables, and knows nothing of telemetry.',
  }),
  fence('dialects', {
    folders: above('events', 'dialects'),
    rootFiles: ['config.js', 'sink-options.js', 'index.js'],
    packages: ['@opentelemetry/*', '@grpc/*', ...BROKER_PACKAGES],
    message: 'a dialect turns wire formats into events/ with zod, and knows nothing else.',
  }),
  fence('mapping', {
    folders: above('events', 'pricing', 'mapping'),
    rootFiles: ['config.js', 'sink-options.js', 'index.js'],
    packages: [...SDK_PACKAGES, ...BROKER_PACKAGES, 'zod'],
    message: 'mapping/ stands on events/ and the OpenTelemetry API, like an instrumentation.',
  }),
  fence('sink', {
    folders: ['telemetry', 'sources', 'partitions', 'checkpoints', 'cli'],
    packages: [...SDK_PACKAGES, ...BROKER_PACKAGES],
    message: 'the sink composes with any providers; it never builds them.',
  }),
  fence('telemetry', {
    folders: ['sink', 'sources', 'partitions', 'checkpoints', 'cli'],
    packages: BROKER_PACKAGES,
    message: 'telemetry/ builds the export pipeline, and knows no source.',
  }),
  ...['sources', 'partitions', 'checkpoints'].map((folder) =>
    fence(folder, {
      folders: ['cli'],
      packages: SDK_PACKAGES,
      message: 'only telemetry/ imports the OpenTelemetry SDK and exporters; nothing imports cli/.',
    }),
  ),
  fence('cli', {
    packages: SDK_PACKAGES,
    message: 'only telemetry/ imports the OpenTelemetry SDK and exporters.',
  }),
  { files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
  { files: ['eslint.config.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['bench/**/*.mjs', 'scripts/**/*.mjs', 'test/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
      },
    },
  },
);
