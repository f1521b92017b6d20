import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** What the server saw of one request. */
export interface SeenRequest {
  path: string;
  authorization: string | undefined;
  contentType: string;
  /** The JSON body of a generation. */
  json?: Record<string, unknown>;
  /** The text fields of an edit. */
  fields?: Record<string, string>;
  /** The `image[]` parts of an edit, in order. */
  images?: Array<{ filename: string; type: string; data: Buffer }>;
}

/** How the server answers the next requests. */
export type Behaviour =
  | { kind: 'image'; width: number; height: number; colour: string }
  | { kind: 'status'; status: number; message: string }
  | { kind: 'hang' }
  | { kind: 'garbage' };

/** Sizes the OpenAI images API accepts, per model family. */
const SIZES: Array<[RegExp, string[]]> = [
  [/^gpt-image/, ['1024x1024', '1536x1024', '1024x1536', 'auto']],
  [/^dall-e-3/, ['1024x1024', '1792x1024', '1024x1792']],
  [/^dall-e-2/, ['256x256', '512x512', '1024x1024']],
];

/**
 * A local stand-in for an OpenAI-compatible images API, with its request and response shapes:
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart, `image[]` parts), a
 * Bearer key, `{ created, data: [{ b64_json }] }` answers and `{ error: { message, type, param, code } }`
 * errors. Like the real API it refuses `response_format` for the GPT image models and unknown sizes.
 */
export class ImagesApiServer {
  readonly seen: SeenRequest[] = [];
  behaviour: Behaviour = { kind: 'image', width: 1536, height: 1024, colour: '#2050e0' };
  private readonly hanging: ServerResponse[] = [];
  private server?: Server;

  constructor(private readonly apiKey = 'sk-test') {}

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = req.headers['content-type'] ?? '';
    const seen: SeenRequest = { path: req.url ?? '', authorization: req.headers.authorization, contentType };
    this.seen.push(seen);

    if (req.method !== 'POST') return error(res, 405, 'Method not allowed', 'invalid_request_error');
    if (req.headers.authorization !== `Bearer ${this.apiKey}`)
      return error(res, 401, 'Incorrect API key provided', 'invalid_request_error', 'invalid_api_key');

    let params: Record<string, unknown>;
    if (req.url === '/v1/images/generations') {
      if (!contentType.startsWith('application/json'))
        return error(res, 400, 'Expected a JSON body', 'invalid_request_error');
      seen.json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      params = seen.json;
    } else if (req.url === '/v1/images/edits') {
      if (!contentType.startsWith('multipart/form-data'))
        return error(res, 400, 'Expected multipart/form-data', 'invalid_request_error');
      const form = await new Response(new Uint8Array(body), {
        headers: { 'content-type': contentType },
      }).formData();
      seen.fields = {};
      seen.images = [];
      for (const [name, value] of form.entries()) {
        if (typeof value === 'string') seen.fields[name] = value;
        else if (name === 'image[]')
          seen.images.push({
            filename: value.name,
            type: value.type,
            data: Buffer.from(await value.arrayBuffer()),
          });
        else return error(res, 400, `Unexpected file field '${name}'`, 'invalid_request_error');
      }
      if (seen.images.length === 0)
        return error(res, 400, "Missing required parameter: 'image'.", 'invalid_request_error');
      params = seen.fields;
    } else {
      return error(res, 404, `Invalid URL (POST ${req.url})`, 'invalid_request_error');
    }

    const model = String(params.model ?? '');
    if (!params.prompt)
      return error(res, 400, "Missing required parameter: 'prompt'.", 'invalid_request_error');
    if (model.startsWith('gpt-image') && 'response_format' in params)
      return error(
        res,
        400,
        "Unknown parameter: 'response_format'.",
        'invalid_request_error',
        'unknown_parameter',
      );
    const sizes = SIZES.find(([family]) => family.test(model))?.[1];
    if (sizes && !sizes.includes(String(params.size)))
      return error(
        res,
        400,
        `Invalid value: '${String(params.size)}'.`,
        'invalid_request_error',
        'invalid_value',
      );

    const behaviour = this.behaviour;
    switch (behaviour.kind) {
      case 'hang':
        this.hanging.push(res);
        return;
      case 'status':
        return error(res, behaviour.status, behaviour.message, 'server_error');
      case 'garbage':
        return json(res, 200, {
          created: 1,
          data: [{ b64_json: Buffer.from('not an image').toString('base64') }],
        });
      case 'image': {
        const png = await sharp({
          create: {
            width: behaviour.width,
            height: behaviour.height,
            channels: 3,
            background: behaviour.colour,
          },
        })
          .png()
          .toBuffer();
        return json(res, 200, { created: 1_777_300_000, data: [{ b64_json: png.toString('base64') }] });
      }
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function error(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
): void {
  json(res, status, { error: { message, type, param: null, code } });
}
