import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

/**
 * Command-line options that are counts, each `--name N` with a default: parsed as positive integers,
 * or the usage printed and the process ended.
 */
export function countOptions<K extends string>(
  script: string,
  defaults: Record<K, number>,
): Record<K, number> {
  const names = Object.keys(defaults) as K[];
  const { values } = parseArgs({
    options: Object.fromEntries(
      names.map((name) => [name, { type: 'string', default: String(defaults[name]) }]),
    ),
  });
  const counts = Object.fromEntries(names.map((name) => [name, Number(values[name])])) as Record<K, number>;
  if (!names.every((name) => Number.isInteger(counts[name]) && counts[name] >= 1)) {
    console.error(`usage: npm run ${script} -- ${names.map((name) => `[--${name} N]`).join(' ')}`);
    process.exit(2);
  }
  return counts;
}

/** The load average, for figures measured on a machine that other work shares. */
export function loadNote(): string {
  return `load average at the end: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')} (${availableParallelism()} cores)`;
}
