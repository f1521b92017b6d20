import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Agent } from 'undici';
import {
  checkWebhookUrl,
  createGuardedDispatcher,
  createGuardedLookup,
  UnsafeAddressError,
  type HostLookup,
} from '../src/index.js';

describe('createGuardedDispatcher', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const agents: Agent[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function dispatcher(options: Parameters<typeof createGuardedDispatcher>[0]): Agent {
    const agent = createGuardedDispatcher(options);
    agents.push(agent);
    return agent;
  }

  it('refuses at connect time a host name that resolves to loopback, without connecting', async () => {
    const before = connections;
    const agent = dispatcher({ allowPrivate: false, lookup: async () => ['127.0.0.1'] });
    const error = await request(`http://rebound.example.com:${port}/hook`, { dispatcher: agent }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(UnsafeAddressError);
    expect(error).toMatchObject({
      host: 'rebound.example.com',
      address: '127.0.0.1',
      addressClass: 'loopback',
    });
    expect(connections).toBe(before);
  });

  it('catches DNS rebinding: public when the URL was checked, loopback when connecting', async () => {
    let calls = 0;
    const rebinding: HostLookup = async () => (calls++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']);
    const url = `http://rebinding.example.com:${port}/hook`;
    await expect(checkWebhookUrl(url, { allowPrivate: false, lookup: rebinding })).resolves.toEqual({
      ok: true,
    });

    const before = connections;
    const agent = dispatcher({ allowPrivate: false, lookup: rebinding });
    await expect(request(url, { dispatcher: agent })).rejects.toBeInstanceOf(UnsafeAddressError);
    expect(connections).toBe(before);
  });

  it('refuses a name with one private address among public ones', async () => {
    const agent = dispatcher({ allowPrivate: false, lookup: async () => ['93.184.215.14', '10.0.0.7'] });
    await expect(request(`http://mixed.example.com:${port}/`, { dispatcher: agent })).rejects.toMatchObject({
      code: 'ERR_UNSAFE_ADDRESS',
      address: '10.0.0.7',
      addressClass: 'private',
    });
  });

  it.each(['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '[::1]'])(
    'refuses the literal address %s without connecting',
    async (host) => {
      const before = connections;
      const agent = dispatcher({ allowPrivate: false });
      const error = await request(`http://${host}:${port}/`, { dispatcher: agent }).catch((e) => e);
      expect(error).toBeInstanceOf(UnsafeAddressError);
      expect(error.addressClass).toBe('loopback');
      expect(connections).toBe(before);
    },
  );

  it('refuses localhost through the system resolver', async () => {
    const agent = dispatcher({ allowPrivate: false });
    await expect(request(`http://localhost:${port}/`, { dispatcher: agent })).rejects.toBeInstanceOf(
      UnsafeAddressError,
    );
  });

  it('with allowPrivate connects to loopback', async () => {
    const agent = dispatcher({ allowPrivate: true, connectTimeoutMs: 1000 });
    const response = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('ok');
  });
});

describe('createGuardedLookup', () => {
  const lookupWith = (addresses: string[]) => createGuardedLookup(async () => addresses);

  function call(
    lookup: ReturnType<typeof createGuardedLookup>,
    options: { all?: boolean; family?: number },
  ): Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }> {
    return new Promise((resolve) =>
      lookup('hooks.example.com', options, (error, address, family) => resolve({ error, address, family })),
    );
  }

  it('answers every public address when asked for all', async () => {
    const result = await call(lookupWith(['93.184.215.14', '2606:4700::6810:84e5']), { all: true });
    expect(result.error).toBeNull();
    expect(result.address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::6810:84e5', family: 6 },
    ]);
  });

  it('answers the first address of the requested family otherwise', async () => {
    const result = await call(lookupWith(['93.184.215.14', '2606:4700::6810:84e5']), { family: 6 });
    expect(result).toEqual({ error: null, address: '2606:4700::6810:84e5', family: 6 });
  });

  it('fails with ENOTFOUND when no address has the requested family', async () => {
    const result = await call(lookupWith(['93.184.215.14']), { family: 6 });
    expect(result.error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('fails when any address is not public', async () => {
    const result = await call(lookupWith(['93.184.215.14', '169.254.169.254']), { all: true });
    expect(result.error).toBeInstanceOf(UnsafeAddressError);
    expect(result.error).toMatchObject({ addressClass: 'metadata' });
  });

  it('passes resolver errors through', async () => {
    const failing = createGuardedLookup(async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    });
    const result = await call(failing, {});
    expect(result.error).toMatchObject({ code: 'EAI_AGAIN' });
  });
});
