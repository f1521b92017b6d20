import { ConfigError, flag, integer, oneOf, type Env } from '@thumbforge/platform';

export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

export interface ClusterSettings {
  kafka: {
    brokers: string[];
    /** Prefix of the client id; each process appends its service name. */
    clientId: string;
    /** Partitions of the topics the first process creates; an existing topic keeps its count. */
    partitions: number;
    /** How long a replica that died without leaving keeps its partitions. */
    sessionTimeoutMs: number;
    /** null: plaintext. Files are PEM; a client certificate comes with its key. */
    tls: { caFile: string | null; certFile: string | null; keyFile: string | null } | null;
    /** null: no authentication. */
    sasl: {
      mechanism: (typeof KAFKA_SASL_MECHANISMS)[number];
      username: string;
      password: string;
    } | null;
  };
  mongo: { uri: string };
  s3: {
    /** null: AWS S3 itself, found from the region. */
    endpoint: string | null;
    region: string;
    /** null: the SDK's default credential chain (environment, profile, instance role). */
    credentials: { accessKeyId: string; secretAccessKey: string } | null;
    publicBucket: string;
    privateBucket: string;
    /** Let anyone read the public bucket, for a setup where CDN_URL is the bucket's own address. */
    publicRead: boolean;
  };
}

function required(env: Env, name: string, hint: string): string {
  const raw = env[name]?.trim();
  if (!raw) throw new ConfigError(name, `is required in cluster mode (${hint})`);
  return raw;
}

function brokers(env: Env): string[] {
  const list = required(env, 'KAFKA_BROKERS', 'comma-separated host:port list')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const broker of list) {
    if (!/^[^\s:/]+:\d{1,5}$/.test(broker))
      throw new ConfigError('KAFKA_BROKERS', `expected host:port entries, got ${JSON.stringify(broker)}`);
  }
  return list;
}

function kafkaTls(env: Env): ClusterSettings['kafka']['tls'] {
  const file = (name: string) => env[name]?.trim() || null;
  const caFile = file('KAFKA_TLS_CA_FILE');
  const certFile = file('KAFKA_TLS_CERT_FILE');
  const keyFile = file('KAFKA_TLS_KEY_FILE');
  if (certFile && !keyFile)
    throw new ConfigError('KAFKA_TLS_KEY_FILE', 'is required when KAFKA_TLS_CERT_FILE is set');
  if (keyFile && !certFile)
    throw new ConfigError('KAFKA_TLS_CERT_FILE', 'is required when KAFKA_TLS_KEY_FILE is set');
  // Naming a CA or a client certificate implies TLS; KAFKA_TLS=true alone trusts the system's CAs.
  const enabled = flag(env, 'KAFKA_TLS', Boolean(caFile || certFile));
  if (!enabled && (caFile || certFile))
    throw new ConfigError('KAFKA_TLS', 'is false, but KAFKA_TLS_* files are set');
  return enabled ? { caFile, certFile, keyFile } : null;
}

function kafkaSasl(env: Env): ClusterSettings['kafka']['sasl'] {
  const username = env.KAFKA_SASL_USERNAME?.trim();
  const password = env.KAFKA_SASL_PASSWORD;
  if (!env.KAFKA_SASL_MECHANISM?.trim()) {
    if (username || password)
      throw new ConfigError(
        'KAFKA_SASL_MECHANISM',
        `is required with SASL credentials (${KAFKA_SASL_MECHANISMS.join(', ')})`,
      );
    return null;
  }
  const mechanism = oneOf(
    { KAFKA_SASL_MECHANISM: env.KAFKA_SASL_MECHANISM.trim().toLowerCase() },
    'KAFKA_SASL_MECHANISM',
    KAFKA_SASL_MECHANISMS,
    'plain',
  );
  if (!username) throw new ConfigError('KAFKA_SASL_USERNAME', 'is required when KAFKA_SASL_MECHANISM is set');
  if (!password) throw new ConfigError('KAFKA_SASL_PASSWORD', 'is required when KAFKA_SASL_MECHANISM is set');
  return { mechanism, username, password };
}

function mongoUri(env: Env): string {
  const uri = required(env, 'MONGODB_URI', 'e.g. mongodb://host:27017/thumbforge');
  if (!/^mongodb(\+srv)?:\/\/\S+$/.test(uri))
    throw new ConfigError(
      'MONGODB_URI',
      `must be a mongodb:// or mongodb+srv:// URI, got ${JSON.stringify(uri)}`,
    );
  return uri;
}

function s3Endpoint(env: Env): string | null {
  const raw = env.S3_ENDPOINT?.trim();
  if (!raw) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('S3_ENDPOINT', `must be an absolute URL, got ${JSON.stringify(raw)}`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol))
    throw new ConfigError('S3_ENDPOINT', 'must be an http or https URL');
  return raw.replace(/\/+$/, '');
}

function credentials(env: Env): ClusterSettings['s3']['credentials'] {
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId && !secretAccessKey) return null;
  if (!accessKeyId) throw new ConfigError('S3_ACCESS_KEY_ID', 'is required when S3_SECRET_ACCESS_KEY is set');
  if (!secretAccessKey)
    throw new ConfigError('S3_SECRET_ACCESS_KEY', 'is required when S3_ACCESS_KEY_ID is set');
  return { accessKeyId, secretAccessKey };
}

/** S3's bucket naming rules, checked here so a typo fails at start-up rather than on the first upload. */
function bucket(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value))
    throw new ConfigError(
      name,
      `must be 3-63 lowercase letters, digits, dots or hyphens, got ${JSON.stringify(value)}`,
    );
  return value;
}

/**
 * The settings only cluster mode has: where Kafka, the MongoDB-wire database and S3 are. A bad or
 * missing one is a `ConfigError`, so start-up prints one line naming it, as for the common settings.
 */
export function loadClusterSettings(env: Env = process.env): ClusterSettings {
  const kafka = {
    brokers: brokers(env),
    clientId: env.KAFKA_CLIENT_ID?.trim() || 'thumbforge',
    // One partition per topic until every reader walks all partitions (see docs/cluster.md).
    partitions: integer(env, 'KAFKA_PARTITIONS', 6, 1, 1000),
    // Kafka's broker refuses sessions shorter than group.min.session.timeout.ms (6 s by default).
    sessionTimeoutMs: integer(env, 'KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 3_600_000),
    tls: kafkaTls(env),
    sasl: kafkaSasl(env),
  };
  const mongo = { uri: mongoUri(env) };
  // Embedded mode serves images itself under /cdn; a cluster has no such server, so links need a base.
  required(env, 'CDN_URL', 'the public base of image links: a CDN or the public bucket');
  const publicBucket = bucket(env, 'S3_PUBLIC_BUCKET', 'thumbforge-public');
  const privateBucket = bucket(env, 'S3_PRIVATE_BUCKET', 'thumbforge-private');
  if (publicBucket === privateBucket)
    throw new ConfigError('S3_PRIVATE_BUCKET', 'must differ from S3_PUBLIC_BUCKET (uploads are private)');
  return {
    kafka,
    mongo,
    s3: {
      endpoint: s3Endpoint(env),
      region: env.S3_REGION?.trim() || 'us-east-1',
      credentials: credentials(env),
      publicBucket,
      privateBucket,
      publicRead: flag(env, 'S3_PUBLIC_READ', false),
    },
  };
}
