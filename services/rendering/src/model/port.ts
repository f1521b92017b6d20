import type { JobSpec } from '@thumbforge/contracts';

/** The job's images, loaded from the private bucket. The logo is composited by the service, never generated. */
export interface GenerationInputs {
  photo?: Buffer;
  logo?: Buffer;
  references?: Buffer[];
}

/** Which engine drew an image: `local-fallback` is the built-in engine standing in for an unavailable model. */
export type GeneratedBy = 'local' | 'openai' | 'local-fallback';

/** A finished thumbnail: encoded in the job's output format, at its exact dimensions, logo included. */
export interface GeneratedImage {
  image: Buffer;
  width: number;
  height: number;
  by: GeneratedBy;
}

/** Turns a job and its images into the finished thumbnail; stops drawing once `signal` is aborted. */
export interface GenerationModel {
  generate(job: JobSpec, inputs: GenerationInputs, signal?: AbortSignal): Promise<GeneratedImage>;
}

export const GENERATION_MODEL = Symbol.for('thumbforge.GenerationModel');

/** A generation failure whose message is written for the user (it ends up in `generation.failed`). */
export class GenerationModelError extends Error {
  override readonly name = 'GenerationModelError';
}
