import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const rule = '@nx/enforce-module-boundaries';

/** Lints `code` as if it were a file at `path` in the workspace, with the workspace's own configuration. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

describe('module boundaries (tags in each package.json, enforced by lint)', () => {
  it.each([
    ['services/gateway/src/probe.ts', "import { BillingModule } from '@thumbforge/billing';"],
    ['services/rendering/src/probe.ts', "import { AssetModule } from '@thumbforge/asset';"],
    ['services/billing/src/probe.ts', "import { x } from '../../gateway/src/index.js';"],
    ['libs/design-engine/src/probe.ts', "import { RenderingModule } from '@thumbforge/rendering';"],
    ['libs/contracts/src/probe.ts', "import { GatewayModule } from '@thumbforge/gateway';"],
    ['libs/domain/src/probe.ts', "import { x } from '@thumbforge/gallery';"],
  ])('refuses %s: %s', async (path, code) => {
    const errors = await boundaryErrors(path, `${code}\nexport const probe = 1;\n`);
    expect(errors.length).toBeGreaterThan(0);
  });

  it.each([
    ['services/rendering/src/probe.ts', "import { Renderer } from '@thumbforge/design-engine';"],
    ['services/gateway/src/probe.ts', "import { LIMITS } from '@thumbforge/contracts';"],
    ['services/embedded/src/probe.ts', "import { BillingModule } from '@thumbforge/billing';"],
    ['tools/gallery/src/probe.ts', "import { Renderer } from '@thumbforge/design-engine';"],
  ])('allows %s: %s', async (path, code) => {
    const errors = await boundaryErrors(path, `${code}\nexport const probe = 1;\n`);
    expect(errors).toEqual([]);
  });
});
