import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { KafkaEventLogOptions } from '@thumbforge/event-log/kafka';
import { ConfigError } from '@thumbforge/platform';
import type { ClusterSettings } from './settings.js';

function pem(setting: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(setting, `cannot read ${path}: ${(error as Error).message}`);
  }
}

/**
 * The TLS and SASL options of a Kafka client from the cluster settings, with the PEM files read: an
 * unreadable file is a `ConfigError` naming its setting, so start-up fails on one clear line.
 */
export function kafkaConnection(
  kafka: ClusterSettings['kafka'],
): Pick<KafkaEventLogOptions, 'brokers' | 'ssl' | 'sasl'> {
  let ssl: boolean | ConnectionOptions | undefined;
  if (kafka.tls) {
    const { caFile, certFile, keyFile } = kafka.tls;
    ssl =
      caFile || certFile
        ? {
            ...(caFile ? { ca: pem('KAFKA_TLS_CA_FILE', caFile) } : {}),
            ...(certFile ? { cert: pem('KAFKA_TLS_CERT_FILE', certFile) } : {}),
            ...(keyFile ? { key: pem('KAFKA_TLS_KEY_FILE', keyFile) } : {}),
          }
        : true;
  }
  return {
    brokers: kafka.brokers,
    ...(ssl ? { ssl } : {}),
    ...(kafka.sasl ? { sasl: kafka.sasl } : {}),
  };
}
