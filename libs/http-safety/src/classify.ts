import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What an IP address is, as far as sending a webhook to it goes: only `public` may be contacted. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'metadata'
  | 'carrier-nat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  /** Not an IP address at all. */
  | 'invalid';

/**
 * Cloud instance-metadata endpoints: they hand out credentials, so they are named on their own even
 * where the surrounding range (link-local, carrier NAT, unique-local) would already refuse them.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean
  '169.254.170.2', // AWS ECS task metadata
  '169.254.170.23', // AWS EKS pod identity
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity over IPv6
]);

const IPV4_CLASSES: Partial<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-nat',
  private: 'private',
};

const IPV6_CLASSES: Partial<Record<string, AddressClass>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'unique-local',
  // fec0::/10, deprecated but still routed inside some networks.
  deprecatedSiteLocal: 'private',
};

/** 2000::/3: the only IPv6 space allocated for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** 64:ff9b::/96, the well-known NAT64 prefix: the last 32 bits are the IPv4 address reached. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function classifyV4(address: ipaddr.IPv4): AddressClass {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  return IPV4_CLASSES[address.range()] ?? 'reserved';
}

function embeddedV4(parts: number[], high: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([
    parts[high]! >> 8,
    parts[high]! & 0xff,
    parts[high + 1]! >> 8,
    parts[high + 1]! & 0xff,
  ]);
}

function classifyV6(address: ipaddr.IPv6): AddressClass {
  if (METADATA_ADDRESSES.has(address.toRFC5952String())) return 'metadata';
  const range = address.range();
  // Addresses that carry an IPv4 address reach that address: judge the IPv4 one.
  if (range === 'ipv4Mapped') return classifyV4(address.toIPv4Address());
  if (range === 'rfc6145') return classifyV4(embeddedV4(address.parts, 6));
  if (address.match(NAT64_WELL_KNOWN)) return classifyV4(embeddedV4(address.parts, 6));
  if (range === '6to4') return classifyV4(embeddedV4(address.parts, 1));
  const named = IPV6_CLASSES[range];
  if (named) return named;
  return range === 'unicast' && address.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

/** Classifies an IPv4 or IPv6 address (brackets and zone ids tolerated); anything else is `invalid`. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIP(bare) === 0) return 'invalid';
  const address = ipaddr.parse(bare);
  return address.kind() === 'ipv4' ? classifyV4(address as ipaddr.IPv4) : classifyV6(address as ipaddr.IPv6);
}

export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip) === 'public';
}
