import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.nx/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    plugins: { '@nx': nx },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The architecture as a rule, by the tags in each package.json: a service never reaches into another
      // service (they talk through the event log) and libraries know no service; only the composition
      // roots, the end-to-end suites and the tools put services together.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          depConstraints: [
            // test-infra: the real Kafka, MongoDB-wire and S3 servers the adapters' suites run against.
            { sourceTag: 'lib', onlyDependOnLibsWithTags: ['lib', 'test-infra'] },
            { sourceTag: 'service', onlyDependOnLibsWithTags: ['lib', 'test-infra'] },
            { sourceTag: 'composition', onlyDependOnLibsWithTags: ['lib', 'service'] },
            { sourceTag: 'e2e', onlyDependOnLibsWithTags: ['lib', 'service', 'composition', 'tool'] },
            { sourceTag: 'tool', onlyDependOnLibsWithTags: ['lib', 'service', 'composition', 'tool'] },
            // The SDKs' tests run against the embedded service; their packages import nothing of ours
            // (the packed package is installed and imported alone in a test).
            { sourceTag: 'sdk', onlyDependOnLibsWithTags: ['lib', 'composition'] },
          ],
        },
      ],
    },
  },
  // The one shared test configuration sits at the root, outside every project.
  { files: ['**/vitest*.config.ts'], rules: { '@nx/enforce-module-boundaries': 'off' } },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
