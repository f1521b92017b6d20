import { describe, expect, it, vi } from 'vitest';
import { checkWebhookUrl, WEBHOOK_URL_REFUSALS, type HostLookup } from '../src/index.js';

const fakeDns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14', '2606:4700::6810:84e5'],
  'internal.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.215.14', '192.168.0.10'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'v6-loopback.example.com': ['::1'],
  'empty.example.com': [],
};

const lookup: HostLookup = async (hostname) => {
  const addresses = fakeDns[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
};

describe('checkWebhookUrl', () => {
  const privateAddress = { ok: false, reason: WEBHOOK_URL_REFUSALS.privateAddress };

  it.each([
    'http://127.0.0.1/hook',
    'http://127.1.2.3:8080/hook',
    'https://[::1]/hook',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://10.0.0.5/',
    'http://172.16.3.4/',
    'http://192.168.1.1/',
    'http://169.254.10.10/',
    'http://[fe80::1]/',
    'http://[fd12:3456::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://0.0.0.0:3000/',
    'http://0/',
    'http://[::]/',
    'http://255.255.255.255/',
    'http://224.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://017700000001/',
    'http://localhost/',
    'http://LOCALHOST:3000/hook',
    'http://localhost./',
    'http://api.localhost/',
    'http://internal.example.com/hook',
    'http://mixed.example.com/hook',
    'http://metadata.example.com/',
    'http://mapped.example.com/',
    'https://v6-loopback.example.com/',
  ])('refuses %s as a private address', async (url) => {
    await expect(checkWebhookUrl(url, { allowPrivate: false, lookup })).resolves.toEqual(privateAddress);
  });

  it.each([
    ['ftp://example.com/hook', WEBHOOK_URL_REFUSALS.scheme],
    ['javascript:alert(1)', WEBHOOK_URL_REFUSALS.scheme],
    ['file:///etc/passwd', WEBHOOK_URL_REFUSALS.scheme],
    ['gopher://hooks.example.com/', WEBHOOK_URL_REFUSALS.scheme],
    ['data:text/plain,hi', WEBHOOK_URL_REFUSALS.scheme],
    ['not a url', WEBHOOK_URL_REFUSALS.notAbsolute],
    ['/relative/hook', WEBHOOK_URL_REFUSALS.notAbsolute],
    ['http://unknown.example.com/', WEBHOOK_URL_REFUSALS.unresolvable],
    ['http://empty.example.com/', WEBHOOK_URL_REFUSALS.unresolvable],
  ])('refuses %s: %s', async (url, reason) => {
    await expect(checkWebhookUrl(url, { allowPrivate: false, lookup })).resolves.toEqual({
      ok: false,
      reason,
    });
  });

  it.each([
    'http://93.184.215.14/hook',
    'https://8.8.8.8/',
    'http://[2606:4700:4700::1111]:8443/hook',
    'https://hooks.example.com/thumbforge?token=abc',
    'HTTPS://HOOKS.EXAMPLE.COM/',
  ])('accepts %s', async (url) => {
    await expect(checkWebhookUrl(url, { allowPrivate: false, lookup })).resolves.toEqual({ ok: true });
  });

  it('judges literal addresses without resolving anything', async () => {
    const spy = vi.fn(lookup);
    await checkWebhookUrl('http://2130706433/', { allowPrivate: false, lookup: spy });
    await checkWebhookUrl('http://93.184.215.14/', { allowPrivate: false, lookup: spy });
    await checkWebhookUrl('http://localhost/', { allowPrivate: false, lookup: spy });
    expect(spy).not.toHaveBeenCalled();
  });

  it('with allowPrivate accepts loopback and private targets but still only http and https', async () => {
    const options = { allowPrivate: true, lookup };
    await expect(checkWebhookUrl('http://127.0.0.1:9/hook', options)).resolves.toEqual({ ok: true });
    await expect(checkWebhookUrl('http://localhost:3000/', options)).resolves.toEqual({ ok: true });
    await expect(checkWebhookUrl('http://internal.example.com/', options)).resolves.toEqual({ ok: true });
    await expect(checkWebhookUrl('ftp://127.0.0.1/', options)).resolves.toEqual({
      ok: false,
      reason: WEBHOOK_URL_REFUSALS.scheme,
    });
  });

  it('uses the system resolver by default', async () => {
    // `.invalid` never resolves (RFC 6761).
    await expect(checkWebhookUrl('http://does-not-exist.invalid/', { allowPrivate: false })).resolves.toEqual(
      {
        ok: false,
        reason: WEBHOOK_URL_REFUSALS.unresolvable,
      },
    );
  });
});
