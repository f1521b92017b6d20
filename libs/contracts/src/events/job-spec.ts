import type { Category, Format, LogoPosition, Model, OutputFormat } from '../formats.js';

export interface LogoPlacement {
  /** Object key in the private bucket. */
  key: string;
  position: LogoPosition;
  /** Fraction of the output width, 0.05 to 0.5. */
  size: number;
  dropShadow: boolean;
}

export interface ResolvedAssets {
  /** The effective format: a reference set's stored format wins over the requested one. */
  format: Format;
  photoKey: string | null;
  logo: LogoPlacement | null;
  references: { setId: string; imageKeys: string[] } | null;
}

/** Everything the rendering service needs to produce one generation. Carried by the reservation. */
export interface JobSpec extends ResolvedAssets {
  jobId: string;
  generationId: string;
  /** null for the public test key: no account, no credits. */
  accountId: string | null;
  title: string;
  category: Category;
  model: Model;
  outputFormat: OutputFormat;
  usePhoto: boolean;
  useLogo: boolean;
  customAssetsId: string | null;
  cost: number;
  webhookUrl: string | null;
  requestedAt: string;
}
