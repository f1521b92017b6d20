import { createHmac } from 'node:crypto';
import type { Category, Format, Model, OutputFormat } from './types.js';

export interface SignedImageParams {
  title: string;
  format: Format;
  category?: Category;
  model?: Model;
  usePhoto?: boolean;
  useLogo?: boolean;
  customAssetsId?: string;
}

/**
 * A `GET /v1/og/{accountId}.{ext}` URL that renders on first fetch (usable as og:image). The
 * signature covers the path and the parameters sorted by name, percent-encoded as
 * encodeURIComponent does, keyed with the account's URL signing secret (`tfus_…`).
 */
export function signedImageUrl(options: {
  baseUrl: string;
  accountId: string;
  secret: string;
  params: SignedImageParams;
  outputFormat?: OutputFormat;
  /** After this the URL answers 403. */
  expiresAt?: Date;
}): string {
  const path = `/v1/og/${options.accountId}.${options.outputFormat ?? 'webp'}`;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.params)) {
    if (value !== undefined) values[name] = String(value);
  }
  if (options.expiresAt) values.exp = String(Math.floor(options.expiresAt.getTime() / 1000));
  const query = Object.keys(values)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(values[name]!)}`)
    .join('&');
  const sig = createHmac('sha256', options.secret).update(`${path}?${query}`).digest('base64url');
  return `${options.baseUrl.replace(/\/+$/, '')}${path}?${query}&sig=${sig}`;
}
