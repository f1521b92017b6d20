import { loadClusterSettings } from '@thumbforge/cluster';
import { SERVICES } from '@thumbforge/local-cluster';
import { loadConfig } from '@thumbforge/platform';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHART,
  containers,
  ofKind,
  podSpec,
  provisionHelm,
  renderChart,
  renderNotes,
  runHelm,
  validateManifest,
  valueArgs,
  type Manifest,
  type ValueSet,
} from '../src/index.js';

/** The first run builds helm from the Go module proxy (minutes); later runs find it cached. */
const PROVISIONING_TIMEOUT_MS = 30 * 60_000;
const KEY_ENCRYPTION_SECRET = 'ab'.repeat(32);

let helm: string;
beforeAll(() => {
  helm = provisionHelm();
}, PROVISIONING_TIMEOUT_MS);

const VALUE_SETS: Record<string, ValueSet> = {
  default: { files: ['ci/default-values.yaml'] },
  'in-cluster dependencies': {
    files: ['values-in-cluster.yaml'],
    set: [
      `secrets.adminToken=in-cluster-admin-token`,
      `secrets.keyEncryptionSecret=${KEY_ENCRYPTION_SECRET}`,
    ],
  },
  'existing secret': { files: ['ci/existing-secret-values.yaml'] },
  'autoscaling, ingress and telemetry': {
    files: ['ci/default-values.yaml'],
    set: [
      'gateway.autoscaling.enabled=true',
      'rendering.autoscaling.enabled=true',
      'ingress.enabled=true',
      'ingress.className=nginx',
      'ingress.tls[0].secretName=thumbforge-tls',
      'ingress.tls[0].hosts[0]=thumbforge.example.com',
      'otel.endpoint=http://otel-collector.observability:4318',
      'extraEnv[0].name=OTEL_METRIC_EXPORT_INTERVAL',
    ],
    setString: ['extraEnv[0].value=15000'],
  },
  'local node (Kafka over TLS with SASL)': {
    files: ['ci/local-node-values.yaml'],
    set: [
      'kafka.brokers[0]=192.0.2.1:9093',
      'mongodb.uri=mongodb://192.0.2.1:27017/thumbforge',
      'cdnUrl=http://192.0.2.1:9000/thumbforge-public',
      'secrets.adminToken=local-node-admin-token',
      `secrets.keyEncryptionSecret=${KEY_ENCRYPTION_SECRET}`,
      'secrets.kafkaSaslPassword=scram-password',
    ],
  },
};

const SERVICE_PORT = 3000;
const deploymentOf = (manifests: Manifest[], service: string) =>
  ofKind(manifests, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === service);
const hookJob = (manifests: Manifest[]) => ofKind(manifests, 'Job')[0]!;
const decode = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
const dataOf = (manifests: Manifest[], kind: string, name: string) =>
  (manifests.find((m) => m.kind === kind && m.metadata.name === name)?.data ?? {}) as Record<string, string>;

/** Pod-level settings apply to a container unless it overrides them. */
function effective(manifest: Manifest, container: IContainer) {
  const pod = podSpec(manifest).securityContext ?? {};
  const own = container.securityContext ?? {};
  return {
    runAsNonRoot: own.runAsNonRoot ?? pod.runAsNonRoot,
    runAsUser: own.runAsUser ?? pod.runAsUser,
    seccomp: own.seccompProfile?.type ?? pod.seccompProfile?.type,
    readOnlyRootFilesystem: own.readOnlyRootFilesystem,
    allowPrivilegeEscalation: own.allowPrivilegeEscalation,
    drop: own.capabilities?.drop ?? [],
  };
}

describe.each(Object.entries(VALUE_SETS))('the chart with the %s values', (_name, values) => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = await renderChart(helm, values);
  });

  it('passes helm lint --strict', async () => {
    const result = await runHelm(helm, ['lint', '--strict', CHART, ...valueArgs(values)]);
    expect(result.stdout + result.stderr).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it('renders objects that are valid against the Kubernetes schemas', () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) validateManifest(manifest);
  });

  it('hardens every container, the hook Job included, and gives each requests and limits', () => {
    const workloads = [...ofKind(manifests, 'Deployment'), ...ofKind(manifests, 'Job')];
    expect(workloads).toHaveLength(SERVICES.length + 1);
    for (const workload of workloads) {
      for (const container of containers(workload)) {
        const where = `${workload.metadata.name}/${container.name}`;
        const security = effective(workload, container);
        expect(security.runAsNonRoot, where).toBe(true);
        expect(security.runAsUser, where).toBeGreaterThan(0);
        expect(security.readOnlyRootFilesystem, where).toBe(true);
        expect(security.allowPrivilegeEscalation, where).toBe(false);
        expect(security.drop, where).toContain('ALL');
        expect(security.seccomp, where).toBe('RuntimeDefault');
        for (const kind of ['requests', 'limits'] as const) {
          expect(container.resources?.[kind]?.cpu, `${where} ${kind}.cpu`).toBeDefined();
          expect(container.resources?.[kind]?.memory, `${where} ${kind}.memory`).toBeDefined();
        }
        // A read-only root needs somewhere to write temporary files.
        const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
        const volume = podSpec(workload).volumes?.find((v) => v.name === tmp?.name);
        expect(volume?.emptyDir, `${where} /tmp`).toBeDefined();
      }
    }
  });

  it('runs each service in its own Deployment with probes on the paths the services serve', () => {
    for (const service of SERVICES) {
      const deployment = deploymentOf(manifests, service);
      expect(deployment, service).toBeDefined();
      const [container] = containers(deployment!);
      expect(container!.args).toEqual([service]);
      expect(container!.ports).toContainEqual(
        expect.objectContaining({ name: 'http', containerPort: SERVICE_PORT }),
      );
      expect(container!.livenessProbe?.httpGet).toMatchObject({ path: '/health/live', port: 'http' });
      expect(container!.readinessProbe?.httpGet).toMatchObject({ path: '/health/ready', port: 'http' });
      expect(container!.startupProbe?.httpGet).toMatchObject({ path: '/health/live', port: 'http' });
      // A process forces its exit 30 s after SIGTERM; Kubernetes must not kill it first.
      // SHUTDOWN_DELAY_MS (5 s) + 60 s + SYNC_TIMEOUT_MS (120 s) + 10 s: the process's own forced exit.
      expect(podSpec(deployment!).terminationGracePeriodSeconds).toBeGreaterThanOrEqual(195);
    }
  });

  it("selects each service's pods, and only them, from its Service and PodDisruptionBudget", () => {
    for (const service of SERVICES) {
      const podLabels = (
        deploymentOf(manifests, service)!.spec as { template: { metadata: { labels: object } } }
      ).template.metadata.labels;
      const others = SERVICES.filter((s) => s !== service).map(
        (s) =>
          (deploymentOf(manifests, s)!.spec as { template: { metadata: { labels: object } } }).template
            .metadata.labels,
      );
      const svc = ofKind(manifests, 'Service').find((s) => s.metadata.name.endsWith(`-${service}`))!;
      const pdb = ofKind(manifests, 'PodDisruptionBudget').find((p) =>
        p.metadata.name.endsWith(`-${service}`),
      )!;
      for (const selector of [
        (svc.spec as { selector: object }).selector,
        (pdb.spec as { selector: { matchLabels: object } }).selector.matchLabels,
      ]) {
        expect(podLabels).toMatchObject(selector);
        for (const other of others) expect(other).not.toMatchObject(selector);
      }
    }
  });

  it('creates the topics in a pre-install and pre-upgrade hook Job', () => {
    const job = hookJob(manifests);
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': expect.stringContaining('before-hook-creation'),
    });
    expect(containers(job).map((c) => c.args)).toEqual([['create-topics']]);
    expect(podSpec(job).restartPolicy).toBe('Never');
  });
});

describe('the rendered settings', () => {
  it("are accepted by the services' and create-topics' own settings loaders", async () => {
    const manifests = await renderChart(helm, VALUE_SETS.default!);
    const config = dataOf(manifests, 'ConfigMap', 'tf-thumbforge');
    const secret = decode(dataOf(manifests, 'Secret', 'tf-thumbforge'));
    const service = { ...config, ...secret };
    expect(loadConfig(service)).toMatchObject({
      mode: 'cluster',
      port: SERVICE_PORT,
      cdnUrl: 'https://cdn.example.com',
    });
    expect(loadClusterSettings(service).kafka.brokers).toEqual([
      'kafka-0.kafka.example.com:9092',
      'kafka-1.kafka.example.com:9092',
    ]);

    // The hook runs before the ConfigMap exists: inline settings and a hook Secret of its own.
    const [container] = containers(hookJob(manifests));
    const inline = Object.fromEntries(container!.env!.map((e) => [e.name, e.value]));
    const hookSecretName = container!.envFrom![0]!.secretRef!.name!;
    const hookSecret = decode(dataOf(manifests, 'Secret', hookSecretName));
    expect(Object.keys(hookSecret).sort()).toEqual([
      'MONGODB_URI',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
    ]);
    expect(inline).toEqual(config);
    expect(loadClusterSettings({ ...inline, ...hookSecret })).toEqual(loadClusterSettings(service));
    const hook = manifests.find((m) => m.metadata.name === hookSecretName)!;
    expect(hook.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(hook.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(
      Number(hookJob(manifests).metadata.annotations?.['helm.sh/hook-weight']),
    );
  });

  it('carry Kafka TLS and SASL to every container, the hook Job included', async () => {
    const manifests = await renderChart(helm, VALUE_SETS['local node (Kafka over TLS with SASL)']!);
    const config = dataOf(manifests, 'ConfigMap', 'tf-thumbforge');
    const secret = decode(dataOf(manifests, 'Secret', 'tf-thumbforge'));
    expect(loadClusterSettings({ ...config, ...secret }).kafka).toMatchObject({
      tls: { caFile: '/etc/thumbforge/kafka-tls/ca.crt', certFile: null, keyFile: null },
      sasl: { mechanism: 'scram-sha-512', username: 'thumbforge-scram', password: 'scram-password' },
    });
    const hookSecretName = containers(hookJob(manifests))[0]!.envFrom![0]!.secretRef!.name!;
    expect(decode(dataOf(manifests, 'Secret', hookSecretName)).KAFKA_SASL_PASSWORD).toBe('scram-password');
    for (const workload of [...ofKind(manifests, 'Deployment'), hookJob(manifests)]) {
      expect(podSpec(workload).volumes, workload.metadata.name).toContainEqual({
        name: 'kafka-tls',
        secret: { secretName: 'thumbforge-kafka-tls' },
      });
      expect(containers(workload)[0]!.volumeMounts, workload.metadata.name).toContainEqual({
        name: 'kafka-tls',
        mountPath: '/etc/thumbforge/kafka-tls',
        readOnly: true,
      });
    }
  });

  it('point every container at an existing Secret instead of generating one', async () => {
    const manifests = await renderChart(helm, VALUE_SETS['existing secret']!);
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    for (const workload of [...ofKind(manifests, 'Deployment'), hookJob(manifests)]) {
      const refs = containers(workload)[0]!.envFrom!.flatMap((source) => source.secretRef?.name ?? []);
      expect(refs, workload.metadata.name).toEqual(['thumbforge-secrets']);
    }
    const annotations = (
      deploymentOf(manifests, 'gateway')!.spec as { template: { metadata: { annotations: object } } }
    ).template.metadata.annotations;
    expect(annotations).not.toHaveProperty('checksum/secret');
  });

  it('roll the pods when a setting or a secret changes', async () => {
    const annotations = async (set: string[]) => {
      const manifests = await renderChart(helm, { files: ['ci/default-values.yaml'], set });
      return (
        deploymentOf(manifests, 'billing')!.spec as {
          template: { metadata: { annotations: Record<string, string> } };
        }
      ).template.metadata.annotations;
    };
    const before = await annotations([]);
    const setting = await annotations(['settings.WEBHOOK_PLANS=business']);
    const secret = await annotations(['secrets.adminToken=another-long-admin-token']);
    expect(setting['checksum/config']).not.toBe(before['checksum/config']);
    expect(setting['checksum/secret']).toBe(before['checksum/secret']);
    expect(secret['checksum/secret']).not.toBe(before['checksum/secret']);
  });

  it('carry autoscaling, the ingress, the OTLP endpoint and extra environment when asked', async () => {
    const manifests = await renderChart(helm, VALUE_SETS['autoscaling, ingress and telemetry']!);
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler');
    expect(
      hpas.map((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).sort(),
    ).toEqual(['tf-thumbforge-gateway', 'tf-thumbforge-rendering']);
    // The autoscaler owns the replica count of those two.
    expect(deploymentOf(manifests, 'gateway')!.spec).not.toHaveProperty('replicas');
    expect(deploymentOf(manifests, 'billing')!.spec).toHaveProperty('replicas', 1);

    const [ingress] = ofKind(manifests, 'Ingress');
    expect(ingress!.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ secretName: 'thumbforge-tls', hosts: ['thumbforge.example.com'] }],
      rules: [
        {
          host: 'thumbforge.example.com',
          http: {
            paths: [{ backend: { service: { name: 'tf-thumbforge-gateway', port: { name: 'http' } } } }],
          },
        },
      ],
    });

    expect(dataOf(manifests, 'ConfigMap', 'tf-thumbforge').OTEL_EXPORTER_OTLP_ENDPOINT).toBe(
      'http://otel-collector.observability:4318',
    );
    for (const workload of [...ofKind(manifests, 'Deployment'), hookJob(manifests)]) {
      expect(containers(workload)[0]!.env, workload.metadata.name).toContainEqual({
        name: 'OTEL_METRIC_EXPORT_INTERVAL',
        value: '15000',
      });
    }
  });
});

const envOf = (manifest: Manifest) => containers(manifest)[0]!.env ?? [];

/** `entry` is in `service`'s environment and its name in no other service's. */
function expectEnvOnlyOn(manifests: Manifest[], service: string, entry: { name: string; value: string }) {
  expect(envOf(deploymentOf(manifests, service)!)).toContainEqual(entry);
  for (const other of ['gateway', 'billing', 'asset', 'rendering', 'webhook-delivery'].filter(
    (s) => s !== service,
  ))
    expect(envOf(deploymentOf(manifests, other)!).map((e) => e.name)).not.toContain(entry.name);
}

describe('the trusted proxies', () => {
  it('reach the gateway, and only the gateway, when set', async () => {
    const manifests = await renderChart(helm, {
      files: ['ci/default-values.yaml'],
      setString: ['gateway.trustedProxies=10.42.0.0/16\\,loopback'],
    });
    expectEnvOnlyOn(manifests, 'gateway', { name: 'TRUSTED_PROXIES', value: '10.42.0.0/16,loopback' });
  });

  it('are none by default', async () => {
    const manifests = await renderChart(helm, VALUE_SETS.default!);
    for (const workload of ofKind(manifests, 'Deployment'))
      expect(envOf(workload).map((e) => e.name)).not.toContain('TRUSTED_PROXIES');
    expect(dataOf(manifests, 'ConfigMap', 'tf-thumbforge')).not.toHaveProperty('TRUSTED_PROXIES');
  });
});

describe('render concurrency', () => {
  it('is twice the rendering CPU limit by default, set on rendering alone, and can be changed', async () => {
    const defaults = await renderChart(helm, VALUE_SETS.default!);
    expectEnvOnlyOn(defaults, 'rendering', { name: 'RENDER_CONCURRENCY', value: '4' });
    const changed = await renderChart(helm, {
      files: ['ci/default-values.yaml'],
      set: ['rendering.renderConcurrency=8'],
    });
    expect(envOf(deploymentOf(changed, 'rendering')!)).toContainEqual({
      name: 'RENDER_CONCURRENCY',
      value: '8',
    });
  });
});

describe('NOTES.txt', () => {
  it('shows how to reach the gateway and the first request with the public test key', async () => {
    const notes = await renderNotes(helm, VALUE_SETS.default!);
    expect(notes).toContain('port-forward service/tf-thumbforge-gateway 3000:80');
    expect(notes).toContain('$THUMBFORGE_URL/v1/generate');
    expect(notes).toContain("-H 'x-api-key: tf_test_public'");
    expect(notes).toContain('\'{"title":"Connection test","format":"youtube"}\'');
    expect(notes).toContain('get secret tf-thumbforge');
    expect(notes).not.toContain('standbys');
  });

  it('uses the ingress host when there is one, and notes replicas beyond the partitions', async () => {
    const notes = await renderNotes(helm, {
      files: ['ci/existing-secret-values.yaml'],
      set: [
        'rendering.autoscaling.enabled=true',
        'rendering.autoscaling.maxReplicas=8',
        'gateway.replicas=9',
      ],
    });
    expect(notes).toContain('export THUMBFORGE_URL=https://thumbs.example.com');
    expect(notes).toContain('get secret thumbforge-secrets');
    expect(notes).toMatch(/rendering may run 8 replicas but topics get 6 partitions/);
    expect(notes).not.toMatch(/gateway may run/);
  });
});

describe('values.schema.json', () => {
  const refusal = async (values: ValueSet) => {
    const result = await runHelm(helm, ['template', 'tf', CHART, ...valueArgs(values)]);
    expect(result.code, result.stdout.slice(0, 200)).not.toBe(0);
    return result.stderr;
  };
  const withDefaults = (set: string[] = [], setString: string[] = []): ValueSet => ({
    files: ['ci/default-values.yaml'],
    set,
    setString,
  });

  it('accepts the default value set', async () => {
    const result = await runHelm(helm, ['template', 'tf', CHART, ...valueArgs(withDefaults())]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('names every missing required setting when given no values', async () => {
    const stderr = await refusal({});
    for (const field of [
      '/kafka/brokers',
      '/cdnUrl',
      '/secrets/adminToken',
      '/secrets/keyEncryptionSecret',
      '/mongodb/uri',
    ])
      expect(stderr).toContain(field);
  });

  it('refuses a negative replica count and a wrong type', async () => {
    expect(await refusal(withDefaults(['gateway.replicas=-1']))).toContain('/gateway/replicas');
    expect(await refusal(withDefaults([], ['rendering.replicas=two']))).toContain('/rendering/replicas');
    expect(await refusal(withDefaults([], ['s3.publicRead=yes']))).toContain('/s3/publicRead');
  });

  it('refuses malformed settings, half S3 credentials, secrets among plain settings and unknown keys', async () => {
    expect(await refusal(withDefaults(['secrets.keyEncryptionSecret=too-short']))).toContain(
      'keyEncryptionSecret',
    );
    expect(await refusal(withDefaults(['secrets.adminToken=short']))).toContain('adminToken');
    expect(await refusal(withDefaults(['kafka.brokers[0]=kafka']))).toContain('/kafka/brokers/0');
    expect(await refusal(withDefaults([], ['secrets.s3SecretAccessKey=']))).toContain('s3SecretAccessKey');
    expect(await refusal(withDefaults(['settings.ADMIN_TOKEN=plain-text-token']))).toContain(
      "propertyName 'ADMIN_TOKEN'",
    );
    expect(await refusal(withDefaults(['gatway.replicas=1']))).toContain('gatway');
    expect(await refusal(withDefaults(['kafka.sasl.mechanism=gssapi']))).toContain('/kafka/sasl/mechanism');
    expect(await refusal(withDefaults(['kafka.sasl.mechanism=plain']))).toContain('/kafka/sasl');
    expect(await refusal(withDefaults(['settings.KAFKA_SASL_PASSWORD=plain-text']))).toContain(
      "propertyName 'KAFKA_SASL_PASSWORD'",
    );
    expect(await refusal(withDefaults(['securityContext.readOnlyRootFilesystem=false']))).toContain(
      'readOnlyRootFilesystem',
    );
  });

  it('needs no generated secret values once an existing Secret is named', async () => {
    const result = await runHelm(helm, [
      'template',
      'tf',
      CHART,
      ...valueArgs({
        set: ['kafka.brokers[0]=kafka:9092', 'cdnUrl=https://cdn.example.com', 'secrets.existingSecret=mine'],
      }),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
