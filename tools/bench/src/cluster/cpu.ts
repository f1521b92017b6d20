import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

/** Processes whose CPU counts under one name: their own pids, or (`group`) their whole process groups. */
export interface CpuProcesses {
  pids: number[];
  /** Count every process of the groups these pids lead (a server started with `setsid`). */
  group?: boolean;
}

/** The CPU a mode's processes took per request over a run of requests, from `/proc`. */
export interface CpuPerRequest {
  /** Requests in flight at once (1: one at a time). */
  connections: number;
  /** Cores of the machine (`availableParallelism`): what the processes shared. */
  cores: number;
  /** Requests answered 2xx in the run. */
  requests: number;
  /** The run's wall time: beside the CPU, how many cores its processes kept busy on average. */
  wallMs: number;
  /** ms of user + system CPU per request, by process name; the bench's own client is not among them. */
  ms: Record<string, number>;
  /** The names among `ms` that are servers the mode runs on (Kafka, FerretDB, MinIO), not its services. */
  servers: string[];
}

let ticksPerSecond: number | undefined;

/** `/proc` counts CPU time in clock ticks (`getconf CLK_TCK`, 100 on Linux as built today). */
function ticks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

interface ProcStat {
  pgrp: number;
  cpuMs: number;
}

/** `/proc/<pid>/stat` of a live process: all its threads' user + system time. */
function parseStat(text: string): ProcStat {
  // The command name (field 2) may hold spaces and parentheses: count the fields after its last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  return { pgrp: Number(fields[2]), cpuMs: (cpuTicks * 1000) / ticks() };
}

async function statOf(pid: number): Promise<ProcStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseStat(text);
}

/** Every live process's stat: for the process groups of servers, whose children are counted too. */
async function allStats(): Promise<ProcStat[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  return (await Promise.all(pids.map(statOf))).filter((stat) => stat !== undefined);
}

/**
 * CPU time (ms) each named set of processes has taken so far; a process gone counts as nothing. The
 * processes named by pid are read first and the process groups after, each kind at the same point of
 * every call, so that two calls bracket the same span for both (the groups' scan of /proc takes tens
 * of ms on a busy machine).
 */
export async function cpuMsByName(processes: Record<string, CpuProcesses>): Promise<Record<string, number>> {
  const sum = (stats: (ProcStat | undefined)[]) => stats.reduce((ms, stat) => ms + (stat?.cpuMs ?? 0), 0);
  const entries = Object.entries(processes);
  const result: Record<string, number> = {};
  for (const [name, { pids }] of entries.filter(([, p]) => !p.group)) {
    result[name] = sum(await Promise.all(pids.map(statOf)));
  }
  if (entries.some(([, p]) => p.group)) {
    const all = await allStats();
    for (const [name, { pids }] of entries.filter(([, p]) => p.group)) {
      result[name] = sum(all.filter((stat) => pids.includes(stat.pgrp)));
    }
  }
  return result;
}

/** Runs `run` and answers the CPU each named set of processes took meanwhile (ms), and the wall time. */
async function cpuOver<R>(
  processes: Record<string, CpuProcesses>,
  run: () => Promise<R>,
): Promise<{ msByName: Record<string, number>; wallMs: number; result: R }> {
  // From the start of the reading before to the start of the reading after: the span each process's
  // two reads bracket.
  const started = performance.now();
  const before = await cpuMsByName(processes);
  const result = await run();
  const wallMs = performance.now() - started;
  const after = await cpuMsByName(processes);
  const msByName = Object.fromEntries(
    Object.keys(processes).map((name) => [name, after[name]! - before[name]!]),
  );
  return { msByName, wallMs, result };
}

/** The names among `processes` that are servers (counted by process group), not services. */
function serversOf(processes: Record<string, CpuProcesses>): string[] {
  return Object.keys(processes).filter((name) => processes[name]!.group);
}

/** Runs `run` and answers what it cost each named set of processes per request it got `answered`. */
export async function cpuPerRequest<R>(
  processes: Record<string, CpuProcesses>,
  connections: number,
  run: () => Promise<R>,
  answered: (result: R) => number,
): Promise<{ cpu: CpuPerRequest; result: R }> {
  const { msByName, wallMs, result } = await cpuOver(processes, run);
  const requests = answered(result);
  const ms = Object.fromEntries(
    Object.entries(msByName).map(([name, total]) => [name, total / Math.max(1, requests)]),
  );
  const cpu = {
    connections,
    cores: availableParallelism(),
    requests,
    wallMs,
    ms,
    servers: serversOf(processes),
  };
  return { cpu, result };
}

/** What a mode's processes take with no request at all: heartbeats, empty fetches, timers. */
export interface IdleCpu {
  wallMs: number;
  /** ms of user + system CPU per second of wall time, by process name. */
  msPerSecond: Record<string, number>;
  servers: string[];
}

/** The CPU each named set of processes takes over `wallMs` in which nothing is asked of them. */
export async function idleCpu(processes: Record<string, CpuProcesses>, wallMs: number): Promise<IdleCpu> {
  const measured = await cpuOver(processes, () => new Promise((resolve) => setTimeout(resolve, wallMs)));
  const msPerSecond = Object.fromEntries(
    Object.entries(measured.msByName).map(([name, ms]) => [name, (ms * 1000) / measured.wallMs]),
  );
  return { wallMs: measured.wallMs, msPerSecond, servers: serversOf(processes) };
}

/** The requests the run answered per second of its wall time. */
export function requestsPerSecond(cpu: CpuPerRequest): number {
  return cpu.wallMs > 0 ? (cpu.requests * 1000) / cpu.wallMs : 0;
}

function sumOf(msByName: Record<string, number>): number {
  return Object.values(msByName).reduce((a, b) => a + b, 0);
}

/** The CPU of every process of the run per request, in ms. */
export function totalMsPerRequest(cpu: CpuPerRequest): number {
  return sumOf(cpu.ms);
}

/** The CPU of every process standing still, in ms per second. */
export function totalMsPerSecond(idle: IdleCpu): number {
  return sumOf(idle.msPerSecond);
}

/** On average over the run, how many cores its processes kept busy. */
export function busyCores(cpu: CpuPerRequest): number {
  return (totalMsPerRequest(cpu) * requestsPerSecond(cpu)) / 1000;
}
