export interface ImagesApiOptions {
  /** Base address; `/v1/images/generations` and `/v1/images/edits` are appended. */
  baseUrl: string;
  /** null: no Authorization header (self-hosted servers without keys). */
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

export interface ImageRequest {
  prompt: string;
  /** `WIDTHxHEIGHT`, one of the sizes the model supports. */
  size: string;
  /** Input images for an edit (the photo first, then the references); none means a plain generation. */
  images: Buffer[];
}

/** How a call failed: no answer in time, an error status, no connection, or an answer without an image. */
export type ImagesApiFailure = 'timeout' | 'status' | 'network' | 'answer';

export class ImagesApiError extends Error {
  override readonly name = 'ImagesApiError';
  constructor(
    message: string,
    readonly kind: ImagesApiFailure,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** Generated images are a few MB of base64; anything far larger is not an answer to this request. */
const RESPONSE_LIMIT = 64 * 1024 * 1024;

/**
 * A client of the OpenAI images API (and the servers that copy it): `generations` (JSON) without
 * input images, `edits` (multipart, one `image[]` part per input) with them; always one image,
 * returned as base64.
 */
export class ImagesApi {
  constructor(private readonly options: ImagesApiOptions) {}

  async create(req: ImageRequest): Promise<Buffer> {
    const { baseUrl, apiKey, model, timeoutMs } = this.options;
    const edit = req.images.length > 0;
    const url = `${baseUrl}/v1/images/${edit ? 'edits' : 'generations'}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;

    let body: string | Buffer;
    if (edit) {
      const form = new FormData();
      form.append('model', model);
      form.append('prompt', req.prompt);
      form.append('size', req.size);
      form.append('n', '1');
      if (acceptsResponseFormat(model)) form.append('response_format', 'b64_json');
      req.images.forEach((image, i) => {
        const { type, extension } = imageType(image);
        form.append('image[]', new Blob([new Uint8Array(image)], { type }), `input-${i + 1}.${extension}`);
      });
      // Encoded up front: the inputs are a few MB at most, and a sized body needs no chunked encoding.
      const encoded = new Response(form);
      headers['content-type'] = encoded.headers.get('content-type')!;
      body = Buffer.from(await encoded.arrayBuffer());
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({
        model,
        prompt: req.prompt,
        size: req.size,
        n: 1,
        ...(acceptsResponseFormat(model) ? { response_format: 'b64_json' } : {}),
      });
    }

    // Loaded on the first call: undici is about 28 MB of a process's memory, and a rendering replica
    // on the built-in engine never calls out.
    const { request } = await import('undici');
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(url, { method: 'POST', headers, body, signal });
      const text = await readText(response.body, RESPONSE_LIMIT);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw new ImagesApiError(
          `images API answered HTTP ${response.statusCode}: ${errorMessage(text)}`,
          'status',
          response.statusCode,
        );
      }
      return decodeImage(text);
    } catch (error) {
      if (error instanceof ImagesApiError) throw error;
      if (signal.aborted) throw new ImagesApiError(`no answer within ${timeoutMs} ms`, 'timeout');
      throw new ImagesApiError(`request failed: ${describe(error)}`, 'network');
    }
  }
}

/** The GPT image models always answer base64 and refuse `response_format`; DALL·E and most copies need it. */
function acceptsResponseFormat(model: string): boolean {
  return !model.startsWith('gpt-image');
}

function imageType(image: Buffer): { type: string; extension: string } {
  if (image.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { type: 'image/png', extension: 'png' };
  if (image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff)
    return { type: 'image/jpeg', extension: 'jpg' };
  if (image.toString('latin1', 0, 4) === 'RIFF' && image.toString('latin1', 8, 12) === 'WEBP')
    return { type: 'image/webp', extension: 'webp' };
  return { type: 'application/octet-stream', extension: 'bin' };
}

async function readText(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new ImagesApiError(`images API answer exceeds ${limit} bytes`, 'answer');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function decodeImage(text: string): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ImagesApiError('images API answered something that is not JSON', 'answer');
  }
  const first = (parsed as { data?: Array<{ b64_json?: unknown }> } | null)?.data?.[0];
  if (typeof first?.b64_json !== 'string' || first.b64_json.length === 0)
    throw new ImagesApiError('images API answer has no data[0].b64_json', 'answer');
  return Buffer.from(first.b64_json, 'base64');
}

/** OpenAI's error body is `{ error: { message } }`; anything else is quoted briefly. */
function errorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 200) || '(empty body)';
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
