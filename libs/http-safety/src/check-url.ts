import { promises as dns } from 'node:dns';
import { classifyAddress } from './classify.js';

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type HostLookup = (hostname: string) => Promise<string[]>;

export interface WebhookUrlCheckOptions {
  /** Lifts the address checks (development and tests); the scheme is still checked. */
  allowPrivate: boolean;
  /** Defaults to the system resolver (`dns.promises.lookup` with `all: true`). */
  lookup?: HostLookup;
}

export type WebhookUrlVerdict = { ok: true } | { ok: false; reason: string };

export const WEBHOOK_URL_REFUSALS = {
  notAbsolute: 'webhookUrl must be an absolute http or https URL',
  scheme: 'webhookUrl must use http or https',
  privateAddress: 'webhookUrl must not point to a private, loopback or metadata address',
  unresolvable: 'webhookUrl host could not be resolved',
} as const;

export const systemLookup: HostLookup = async (hostname) =>
  (await dns.lookup(hostname, { all: true })).map((entry) => entry.address);

/** `[::1]` → `::1`: URL keeps the brackets of an IPv6 literal in `hostname`. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** `localhost` and every name under it are loopback by definition (RFC 6761), whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function refuse(reason: string): WebhookUrlVerdict {
  return { ok: false, reason };
}

/**
 * Request-time check of a webhook target (DESIGN §5). The WHATWG parser has already turned integer,
 * octal and hex IPv4 forms (`http://2130706433/`, `http://0x7f.1/`) into dotted quads, so a literal
 * address is judged as the address it really is. A host name must resolve, and every address it
 * resolves to must be public: one private answer is enough for a rebinding attack.
 */
export async function checkWebhookUrl(
  url: string,
  options: WebhookUrlCheckOptions,
): Promise<WebhookUrlVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(WEBHOOK_URL_REFUSALS.notAbsolute);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return refuse(WEBHOOK_URL_REFUSALS.scheme);
  if (options.allowPrivate) return { ok: true };

  const host = unbracket(parsed.hostname);
  const literal = classifyAddress(host);
  if (literal !== 'invalid')
    return literal === 'public' ? { ok: true } : refuse(WEBHOOK_URL_REFUSALS.privateAddress);
  if (isLocalhostName(host)) return refuse(WEBHOOK_URL_REFUSALS.privateAddress);

  let addresses: string[];
  try {
    addresses = await (options.lookup ?? systemLookup)(host);
  } catch {
    return refuse(WEBHOOK_URL_REFUSALS.unresolvable);
  }
  if (addresses.length === 0) return refuse(WEBHOOK_URL_REFUSALS.unresolvable);
  if (addresses.some((address) => classifyAddress(address) !== 'public')) {
    return refuse(WEBHOOK_URL_REFUSALS.privateAddress);
  }
  return { ok: true };
}
