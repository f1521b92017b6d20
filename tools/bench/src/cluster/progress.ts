import { Presets, SingleBar } from 'cli-progress';

export interface ProgressBar {
  update(value: number): void;
  stop(): void;
}

/** Progress of the long phases; `silentProgress` for tests and scripts. */
export interface Progress {
  start(label: string, total: number): ProgressBar;
  /** A line between the bars: what the bench is doing now. */
  note(line: string): void;
}

export const silentProgress: Progress = {
  start: () => ({ update: () => undefined, stop: () => undefined }),
  note: () => undefined,
};

/** cli-progress bars on stderr, so the table on stdout stays clean when redirected. */
export function terminalProgress(): Progress {
  return {
    start(label, total) {
      const bar = new SingleBar(
        {
          format: `${label.padEnd(24)} {bar} {percentage}% | {value}/{total} | {eta_formatted} left`,
          hideCursor: true,
          etaBuffer: 50,
        },
        Presets.shades_classic,
      );
      bar.start(total, 0);
      return { update: (value) => bar.update(value), stop: () => bar.stop() };
    },
    note: (line) => process.stderr.write(`${line}\n`),
  };
}
