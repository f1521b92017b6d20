import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, eventually, startApp, TestClock, type TestApp } from './support/app.js';

/** The rate limiter refills with the service's clock: these runs need it to move. */
class RealClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');

function runCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** `thumbforge generate`: the built CLI against a running service. */
describe('thumbforge generate --csv', () => {
  let app: TestApp;
  let account: { accountId: string; apiKey: string };
  let env: Record<string, string>;
  beforeAll(async () => {
    app = await startApp({ RATE_LIMITS: 'pro=3' }, { clock: new RealClock() });
    account = await admin(app.url).createAccount('pro');
    env = { THUMBFORGE_URL: app.url, THUMBFORGE_API_KEY: account.apiKey };
  });
  afterAll(() => app?.close());

  const reserved = async () =>
    ((await admin(app.url).ledger(account.accountId)).body as Array<{ kind: string }>).filter(
      (e) => e.kind === 'reserved',
    ).length;

  it('makes one image per row with a summary, resumes after an interruption without charging twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-cli-'));
    const csv = join(dir, 'titles.csv');
    const titles = Array.from({ length: 8 }, (_, i) => `Episode ${i + 1}: "quoted", and more`);
    writeFileSync(
      csv,
      [
        'title,format,outputFormat',
        ...titles.map((t, i) => `"${t.replace(/"/g, '""')}",${i % 2 ? 'x' : 'youtube'},png`),
        'Broken,square,png',
      ].join('\n'),
    );
    const out = join(dir, 'out');

    // Interrupted once two images are written (rate limit 3/s with 3 workers: 429s are waited out).
    const first = runCli(['generate', '--csv', csv, '--out', out, '--concurrency', '3'], env);
    await eventually(
      async () => existsSync(out) && readdirSync(out).filter((f) => f.endsWith('.png')).length >= 2,
      60_000,
    );
    first.child.kill('SIGINT');
    await first.exited;
    const before = readdirSync(out).filter((f) => f.endsWith('.png')).length;
    expect(before).toBeLessThan(9);
    rmSync(join(out, readdirSync(out).filter((f) => f.endsWith('.png'))[0]!));

    const second = runCli(['generate', '--csv', csv, '--out', out, '--concurrency', '3'], env);
    expect(await second.exited).toBe(1);
    const { stdout, stderr } = second.output();
    expect(stderr, stdout).toMatch(/generating .* 9\/9 \| 1 failed/);
    const summary =
      /9 rows: (\d+) generated, (\d+) replayed without a new charge, (\d+) already in .*, 1 failed/.exec(
        stdout,
      );
    expect(summary, stdout).not.toBeNull();
    const [generated, replayed, skipped] = summary!.slice(1).map(Number);
    expect(generated! + replayed! + skipped!).toBe(8);
    expect(replayed).toBeGreaterThanOrEqual(1);
    expect(stdout).toMatch(/row 9 \(Broken\): 400 format must be one of/);

    const files = readdirSync(out)
      .filter((f) => f.endsWith('.png'))
      .sort();
    expect(files).toHaveLength(8);
    expect(readdirSync(out).filter((f) => f.endsWith('.partial'))).toEqual([]);
    for (const [i, file] of files.entries()) {
      const meta = await sharp(join(out, file)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(i % 2 ? ['png', 1200, 675] : ['png', 1280, 720]);
    }
    // Every row was charged once, however the runs were cut.
    expect(await reserved()).toBe(8);

    const third = runCli(['generate', '--csv', csv, '--out', out], env);
    expect(await third.exited).toBe(1);
    expect(third.output().stdout).toMatch(
      /9 rows: 0 generated, 0 replayed without a new charge, 8 already in/,
    );
    expect(await reserved()).toBe(8);
  });

  it('refuses a bad CSV or a missing key before sending anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-cli-'));
    writeFileSync(join(dir, 'bad.csv'), 'title,colour\nA,red\n');
    const bad = runCli(['generate', '--csv', join(dir, 'bad.csv'), '--out', dir], env);
    expect(await bad.exited).toBe(1);
    expect(bad.output().stderr).toMatch(/unknown column\(s\) colour/);
    const noKey = runCli(['generate', '--csv', join(dir, 'bad.csv'), '--out', dir], {
      ...env,
      THUMBFORGE_API_KEY: '',
    });
    expect(await noKey.exited).toBe(1);
    expect(noKey.output().stderr).toMatch(/an API key is required/);
  });
});
