import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { Manifest } from './helm.js';

interface Validatable {
  validate(): void;
}

/** The kinds the chart renders, each with its Kubernetes schema (kubernetes-models). */
const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/**
 * Validates one object against the Kubernetes OpenAPI schema of its kind, offline. Throws naming the
 * object and the failing fields; an apiVersion/kind without a schema here is an error too, so a new
 * template cannot slip past unchecked.
 */
export function validateManifest(manifest: Manifest): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const Model = MODELS[key];
  if (!Model) throw new Error(`${manifest.metadata.name}: no schema for ${key}`);
  try {
    new Model(manifest as never).validate();
  } catch (error) {
    throw new Error(`${key} ${manifest.metadata.name}: ${(error as Error).message}`, { cause: error });
  }
}

export const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);

/** The pod spec of a Deployment or Job. */
export function podSpec(manifest: Manifest): IPodSpec {
  const spec = (manifest.spec as { template?: { spec?: IPodSpec } } | undefined)?.template?.spec;
  if (!spec) throw new Error(`${manifest.kind} ${manifest.metadata.name} has no pod template`);
  return spec;
}

export function containers(manifest: Manifest): IContainer[] {
  const spec = podSpec(manifest);
  return [...(spec.initContainers ?? []), ...spec.containers];
}
