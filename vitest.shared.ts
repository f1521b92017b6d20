import swc from 'unplugin-swc';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * One test configuration for every project: SWC compiles the decorators (Nest needs their metadata,
 * which esbuild does not emit) and the `source` export condition points workspace packages at their
 * TypeScript sources, so tests never depend on a previous build.
 */
export function projectTestConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  // Vitest hands these to Node as --conditions too, so only add ones that are safe for require().
  const conditions = ['source', 'node'];
  return defineConfig({
    plugins: [
      swc.vite({
        tsconfigFile: false,
        // The build's .swcrc excludes test folders; suites shared across projects must still compile.
        swcrc: false,
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2023',
          keepClassNames: true,
        },
      }),
    ],
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      environment: 'node',
      include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      maxWorkers: 2,
      ...overrides,
    },
  });
}
