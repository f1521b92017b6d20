import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

describe('the toolchain a fresh clone gets', () => {
  // The `node` package's binary arrives by its install script: where npm skipped it (npm 12 without an
  // `allowScripts` entry), every script would run on whatever Node.js the machine has.
  it('runs every script on the Node.js that package.json pins', () => {
    expect(process.versions.node).toBe(manifest.devDependencies['node']);
  });

  it('lets npm run the install script that brings the pinned Node.js', () => {
    expect(manifest.allowScripts?.['node']).toBe(true);
  });
});
