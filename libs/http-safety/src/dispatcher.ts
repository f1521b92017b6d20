import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { systemLookup, unbracket, type HostLookup } from './check-url.js';
import { classifyAddress, type AddressClass } from './classify.js';

/** Raised at connection time when a webhook target is, or resolves to, an address that is not public. */
export class UnsafeAddressError extends Error {
  readonly code = 'ERR_UNSAFE_ADDRESS';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    const target = host === address ? address : `${host} (${address})`;
    super(`refused to connect to ${target}: ${addressClass} addresses are not allowed as webhook targets`);
    this.name = 'UnsafeAddressError';
  }
}

function requestedFamily(family: LookupOptions['family']): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/**
 * A `net.connect` lookup that resolves the host and refuses the connection if any address is not
 * public. It runs for every new connection, so a name that resolved to a public address when the URL
 * was checked and to a private one now (DNS rebinding) is caught here.
 */
export function createGuardedLookup(lookup: HostLookup = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (all) => {
        const unsafe = all.find((address) => classifyAddress(address) !== 'public');
        if (unsafe !== undefined) {
          callback(new UnsafeAddressError(hostname, unsafe, classifyAddress(unsafe)), '', 0);
          return;
        }
        const family = requestedFamily(options.family);
        const entries: LookupAddress[] = all
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => family === undefined || entry.family === family);
        if (entries.length === 0) {
          callback(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export interface GuardedDispatcherOptions {
  /** Lifts the address checks (development and tests). */
  allowPrivate: boolean;
  /** TCP (and TLS) connection timeout; undici's default (10 s) otherwise. */
  connectTimeoutMs?: number;
  /** Resolver for host names; the system resolver by default. */
  lookup?: HostLookup;
}

/**
 * An undici Agent for webhook deliveries. Host names go through the guarded `connect.lookup`; literal
 * addresses never reach a lookup in `net.connect`, so they are judged before the connector runs.
 */
export function createGuardedDispatcher(options: GuardedDispatcherOptions): Agent {
  const timeout = options.connectTimeoutMs;
  if (options.allowPrivate) return new Agent({ connect: { timeout } });

  const connector = buildConnector({ timeout, lookup: createGuardedLookup(options.lookup) });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = unbracket(connectOptions.hostname);
      if (isIP(host) !== 0) {
        const addressClass = classifyAddress(host);
        if (addressClass !== 'public') {
          process.nextTick(() => callback(new UnsafeAddressError(host, host, addressClass), null));
          return;
        }
      }
      connector(connectOptions, callback);
    },
  });
}
