import { readFileSync } from 'node:fs';
import { Copy, DockerfileParser, Label, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { REPO } from './helm.js';

export const DOCKERFILE = `${REPO}docker/Dockerfile`;
export const ENTRYPOINT = `${REPO}docker/entrypoint.sh`;

/**
 * The image's commands from docker/entrypoint.sh: name → the script node runs, relative to the
 * image's working directory, which mirrors the repository's layout. Read from the script's `case`
 * arms of the form `name) main=path ;;`.
 */
export function entrypointCommands(script = readFileSync(ENTRYPOINT, 'utf8')): Map<string, string> {
  const commands = new Map<string, string>();
  for (const match of script.matchAll(/^\s*([a-z][a-z-]*)\)\s+main=(\S+)\s*;;\s*$/gm)) {
    commands.set(match[1]!, match[2]!);
  }
  return commands;
}

export interface Stage {
  name: string | undefined;
  image: string;
  tag: string | undefined;
  instructions: Instruction[];
}

export interface DockerfileReport {
  /** Problems reported by dockerfile-utils' validator (syntax, unknown flags, bad arguments). */
  problems: ReturnType<typeof validate>;
  stages: Stage[];
  /** Instructions before the first FROM (global ARGs). */
  preamble: Instruction[];
}

export function analyzeDockerfile(text = readFileSync(DOCKERFILE, 'utf8')): DockerfileReport {
  const dockerfile = DockerfileParser.parse(text);
  const stages: Stage[] = [];
  const preamble: Instruction[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const from = dockerfile
        .getFROMs()
        .find((f) => f.getRange().start.line === instruction.getRange().start.line)!;
      stages.push({
        name: from.getBuildStage() ?? undefined,
        image: from.getImageName() ?? '',
        tag: from.getImageTag() ?? undefined,
        instructions: [],
      });
    } else if (stages.length === 0) {
      preamble.push(instruction);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { problems: validate(text), stages, preamble };
}

/** The instructions of a stage with that keyword, with their argument text. */
export function instructions(stage: Stage, keyword: string): string[] {
  return stage.instructions
    .filter((i) => i.getKeyword() === keyword)
    .map((i) => i.getArgumentsContent() ?? '');
}

/** The LABEL keys and values of a stage. */
export function labels(stage: Stage): Map<string, string> {
  const found = new Map<string, string>();
  for (const instruction of stage.instructions) {
    if (!(instruction instanceof Label)) continue;
    for (const property of instruction.getProperties())
      found.set(property.getName(), property.getValue() ?? '');
  }
  return found;
}

/** The stages a stage copies from (`COPY --from=`). */
export function copiedFrom(stage: Stage): string[] {
  return stage.instructions.flatMap((i) => (i instanceof Copy ? [i.getFromFlag()?.getValue() ?? ''] : []));
}
