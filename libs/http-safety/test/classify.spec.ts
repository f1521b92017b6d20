import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress, type AddressClass } from '../src/index.js';

describe('classifyAddress', () => {
  const table: [string, AddressClass][] = [
    ['93.184.215.14', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['fec0::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:0ec2:0000::0254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'carrier-nat'],
    ['100.127.255.254', 'carrier-nat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['4000::1', 'reserved'],
    // Addresses that embed an IPv4 address are judged by it.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::5db8:d70e', 'public'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:5db8:d70e::1', 'public'],
    ['::ffff:0:a00:1', 'private'],
    ['example.com', 'invalid'],
    ['2130706433', 'invalid'],
    ['0x7f.1', 'invalid'],
    ['', 'invalid'],
  ];

  it.each(table)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('calls only public addresses public', () => {
    const publicOnes = table.filter(([ip]) => isPublicAddress(ip)).map(([ip]) => ip);
    expect(publicOnes).toEqual(table.filter(([, c]) => c === 'public').map(([ip]) => ip));
  });
});
