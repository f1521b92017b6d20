import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { busyCores, cpuMsByName, cpuPerRequest, idleCpu } from '../src/index.js';

/** Spins until this process has used `ms` of CPU, then says so and idles until killed. */
const SPIN = (ms: number) =>
  `const until = ${ms} * 1000; while (process.cpuUsage().user + process.cpuUsage().system < until) {} ` +
  `console.log('spun'); setInterval(() => {}, 1000);`;

const children: ChildProcess[] = [];

/**
 * A process group of its own, led by a node that idles, with one child that spins `ms` of CPU; the
 * test's end kills the whole group.
 */
async function groupWithSpinner(ms: number): Promise<number> {
  const leader = spawn(
    process.execPath,
    [
      '-e',
      `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(SPIN(ms))}], { stdio: ['ignore', 'pipe', 'inherit'] });` +
        `c.stdout.pipe(process.stdout);`,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(leader);
  leader.stdout.setEncoding('utf8');
  await once(leader.stdout, 'data');
  return leader.pid!;
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Not a group's leader, or gone already.
      child.kill('SIGKILL');
    }
  }
});

describe('cpuMsByName', () => {
  it('counts a process group’s children with `group`, the leader alone without', async () => {
    const leader = await groupWithSpinner(300);
    const cpu = await cpuMsByName({
      whole: { pids: [leader], group: true },
      leader: { pids: [leader] },
    });
    // /proc counts in clock ticks (10 ms): the spinner's 300 ms are there, less at most a tick.
    expect(cpu.whole).toBeGreaterThanOrEqual(290);
    expect(cpu.whole! - cpu.leader!).toBeGreaterThanOrEqual(290);
  });

  it('counts a process gone as nothing', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    expect(await cpuMsByName({ gone: { pids: [child.pid!] } })).toEqual({ gone: 0 });
  });
});

describe('cpuPerRequest', () => {
  it('divides what the processes took over the run by the requests answered', async () => {
    let spinner = 0;
    const { cpu, result } = await cpuPerRequest(
      {
        bench: { pids: [process.pid] },
        spinner: { pids: [], group: true },
      },
      4,
      async () => {
        // Use about 400 ms of this process's CPU: 10 requests, 2 of them failed.
        const until = process.cpuUsage().user + process.cpuUsage().system + 400_000;
        while (process.cpuUsage().user + process.cpuUsage().system < until) spinner++;
        return { requests: 10, failures: 2 };
      },
      (r) => r.requests - r.failures,
    );
    expect(spinner).toBeGreaterThan(0);
    expect(result).toEqual({ requests: 10, failures: 2 });
    expect(cpu).toMatchObject({ connections: 4, requests: 8, servers: ['spinner'], ms: { spinner: 0 } });
    expect(cpu.cores).toBeGreaterThanOrEqual(1);
    // 400 ms over 8 answered requests, give or take a clock tick on each side.
    expect(cpu.ms.bench).toBeGreaterThanOrEqual(48);
    expect(cpu.ms.bench).toBeLessThan(80);
    // Busy cores: the run's CPU in all over its wall time.
    expect(cpu.wallMs).toBeGreaterThan(0);
    expect(busyCores(cpu)).toBeGreaterThan(0);
    expect(busyCores(cpu)).toBeCloseTo((cpu.ms.bench! * 8) / cpu.wallMs, 6);
  });
});

describe('idleCpu', () => {
  it('answers each process’s CPU per second of the wait: a spinning thread takes at most one core', async () => {
    const spinner = spawn(process.execPath, ['-e', 'while (true) {}']);
    children.push(spinner);
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    const idle = await idleCpu(
      { spinner: { pids: [spinner.pid!] }, gone: { pids: [gone.pid!] }, kafka: { pids: [], group: true } },
      500,
    );
    expect(idle.wallMs).toBeGreaterThanOrEqual(499);
    expect(idle.msPerSecond.spinner).toBeGreaterThan(0);
    // One thread, and /proc's clock ticks (10 ms) at either end of half a second.
    expect(idle.msPerSecond.spinner).toBeLessThanOrEqual(1_000 + 40);
    expect(idle.msPerSecond.gone).toBe(0);
    expect(idle.servers).toEqual(['kafka']);
  });
});
