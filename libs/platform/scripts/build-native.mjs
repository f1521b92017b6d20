// Compiles native/malloc-trim.c into dist/native/malloc-trim.node with the C compiler ($CC or cc)
// against the headers of the Node.js that runs this script. Optional: where there is no compiler,
// no headers or no glibc, it says so and the processes run without trimming (src/memory/malloc-trim.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'native', 'malloc-trim.c');
const target = join(root, 'dist', 'native', 'malloc-trim.node');
// A build that skips must not leave an earlier build's addon behind.
rmSync(target, { force: true });

function skip(reason) {
  console.warn(`@thumbforge/platform: malloc_trim addon not built (${reason}); memory is not trimmed`);
  process.exit(0);
}

if (process.platform !== 'linux') skip(`${process.platform} is not Linux`);
if (!process.report.getReport().header.glibcVersionRuntime) skip('the C library is not glibc');

// An official build keeps its headers in <prefix>/include/node; the npm `node` package pins its own
// binary under node_modules/node/node_modules/node-<platform>-<arch>.
const headers = [
  join(dirname(process.execPath), '..', 'include', 'node'),
  join(
    root,
    '..',
    '..',
    'node_modules',
    'node',
    'node_modules',
    `node-linux-${process.arch}`,
    'include',
    'node',
  ),
  '/usr/local/include/node',
  '/usr/include/node',
].find((dir) => existsSync(join(dir, 'node_api.h')));
if (!headers) skip(`no node_api.h for ${process.execPath}`);

const cc = process.env.CC || 'cc';
mkdirSync(dirname(target), { recursive: true });
const built = spawnSync(cc, ['-O2', '-shared', '-fPIC', '-Wall', `-I${headers}`, source, '-o', target], {
  encoding: 'utf8',
});
if (built.error) skip(`${cc}: ${built.error.message}`);
if (built.status !== 0) skip(`${cc} failed: ${built.stderr.trim()}`);
