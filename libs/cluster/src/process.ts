import { ConfigError, type Config, type Infrastructure } from '@thumbforge/platform';
import { openClusterInfrastructure } from './infrastructure.js';
import { loadClusterSettings } from './settings.js';

/**
 * The `openInfrastructure` of a cluster service process. It insists on THUMBFORGE_MODE=cluster (a
 * lone service on embedded storage would share nothing with the others) and reports a bad cluster
 * setting the way `runServiceProcess` reports a common one: one line and exit code 78.
 */
export function clusterInfrastructure(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
): (config: Config) => Promise<Infrastructure> {
  return async (config) => {
    let settings;
    try {
      if (config.mode !== 'cluster')
        throw new ConfigError(
          'THUMBFORGE_MODE',
          `must be cluster for the ${serviceName} process; embedded mode runs all five services in one (node services/embedded/dist/main.js)`,
        );
      settings = loadClusterSettings(env);
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`thumbforge ${serviceName}: invalid configuration: ${error.message}\n`);
        process.exit(78);
      }
      throw error;
    }
    const infra = await openClusterInfrastructure(config, settings, serviceName);
    infra.logger.info(
      {
        brokers: settings.kafka.brokers,
        partitions: settings.kafka.partitions,
        cdnUrl: config.cdnUrl,
        buckets: [settings.s3.publicBucket, settings.s3.privateBucket],
      },
      'cluster mode',
    );
    return infra;
  };
}
