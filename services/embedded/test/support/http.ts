import type { Plan } from '@thumbforge/contracts';

/** HTTP helpers for any running Thumbforge (embedded app, embedded process, or a cluster's gateway). */

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Json {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function request(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Json> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: {
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(rest.headers as Record<string, string>),
    },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // left as text
  }
  return { status: res.status, headers: res.headers, body };
}

export function admin(base: string) {
  const call = (method: string, path: string, json?: unknown) =>
    request(`${base}/admin/v1${path}`, { method, json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return {
    call,
    async createAccount(plan: Plan, apiAccess = true): Promise<{ accountId: string; apiKey: string }> {
      const res = await call('POST', '/accounts', { plan, apiAccess });
      if (res.status !== 201)
        throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    account: (id: string) => call('GET', `/accounts/${id}`),
    ledger: (id: string) => call('GET', `/accounts/${id}/ledger`),
  };
}

export function generate(
  base: string,
  apiKey: string | null,
  json: unknown,
  headers: Record<string, string> = {},
) {
  return request(`${base}/v1/generate`, {
    method: 'POST',
    json,
    headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
  });
}

export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
