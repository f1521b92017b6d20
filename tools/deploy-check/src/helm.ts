import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART = `${REPO}helm/thumbforge`;
const PROVISION_HELM = fileURLToPath(new URL('../scripts/provision-helm.sh', import.meta.url));

/**
 * Builds helm from the Go module proxy into the tools cache on first use (minutes on two cores) and
 * returns its path; later calls find the cached binary.
 */
export function provisionHelm(): string {
  // Progress lines go straight to stderr; stdout is the binary's path.
  const output = execFileSync('bash', [PROVISION_HELM], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return output.trim().split('\n').at(-1)!;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm; a non-zero exit is a result, not an exception, so tests can assert on refusals. */
export function runHelm(helm: string, args: string[]): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(helm, args, { cwd: REPO, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** A set of values for the chart: files (relative to the chart) and --set flags. */
export interface ValueSet {
  files?: string[];
  set?: string[];
  setString?: string[];
}

export function valueArgs({ files = [], set = [], setString = [] }: ValueSet, chart = CHART): string[] {
  return [
    ...files.flatMap((file) => ['--values', `${chart}/${file}`]),
    ...set.flatMap((flag) => ['--set', flag]),
    ...setString.flatMap((flag) => ['--set-string', flag]),
  ];
}

/** A rendered Kubernetes object, loosely typed: checks read what they need. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export function parseManifests(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((doc): doc is Manifest => doc !== null);
}

/** `helm template` of the chart; throws with helm's message when it refuses the values. */
export async function renderChart(helm: string, values: ValueSet, release = 'tf'): Promise<Manifest[]> {
  const result = await runHelm(helm, ['template', release, CHART, ...valueArgs(values)]);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/**
 * The chart's NOTES.txt as `helm install` would print it. `helm template` leaves notes out, so a copy
 * of the chart renders them into a ConfigMap.
 */
export async function renderNotes(helm: string, values: ValueSet, release = 'tf'): Promise<string> {
  const copy = mkdtempSync(join(tmpdir(), 'thumbforge-chart-'));
  try {
    cpSync(CHART, copy, { recursive: true });
    writeFileSync(
      join(copy, 'templates', 'notes-rendered.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: notes }\n' +
        'data: { notes: {{ include "thumbforge/templates/NOTES.txt" . | toJson }} }\n',
    );
    const args = ['template', release, copy, '--show-only', 'templates/notes-rendered.yaml'];
    const result = await runHelm(helm, [...args, ...valueArgs(values, copy)]);
    if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
    return (parseManifests(result.stdout)[0]!.data as { notes: string }).notes;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
