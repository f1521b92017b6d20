import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  signBody,
  standardSignature,
  standardWebhookHeaders,
  webhookBody,
  webhookHeaders,
} from './webhook-body.js';

const completed = {
  jobId: 'job_1',
  timestamp: '2026-04-27T14:30:00Z',
  outcome: {
    event: 'generation.completed' as const,
    generationId: 'gen_1',
    format: 'instagram' as const,
    outputFormat: 'png' as const,
    width: 2048,
    height: 2048,
    resultKey: 'results/job_1.png',
    imageUrl: null,
  },
};

describe('webhookBody', () => {
  it('builds generation.completed with the image as a data URL of its output format', () => {
    const body = webhookBody(completed, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(JSON.stringify(body)).toBe(
      '{"event":"generation.completed","jobId":"job_1","data":{"image":"data:image/png;base64,iVBORw==",' +
        '"format":"instagram","outputFormat":"png","generationId":"gen_1","imageUrl":null,' +
        '"dimensions":{"width":2048,"height":2048}},"timestamp":"2026-04-27T14:30:00Z"}',
    );
  });

  it('builds generation.failed with the error', () => {
    const body = webhookBody({
      jobId: 'job_2',
      timestamp: '2026-04-27T14:30:00Z',
      outcome: { event: 'generation.failed', error: 'Generation timed out' },
    });
    expect(JSON.stringify(body)).toBe(
      '{"event":"generation.failed","jobId":"job_2","error":"Generation timed out","timestamp":"2026-04-27T14:30:00Z"}',
    );
  });

  it('refuses to build a completed body without the image', () => {
    expect(() => webhookBody(completed)).toThrow(/image/);
  });
});

describe('signBody', () => {
  it('is the hex HMAC-SHA256 of the body bytes under the key', () => {
    const bytes = '{"event":"generation.failed","jobId":"job_2","error":"é ✓","timestamp":"x"}';
    expect(signBody(bytes, 'tf_test_public')).toBe(
      createHmac('sha256', 'tf_test_public').update(Buffer.from(bytes, 'utf8')).digest('hex'),
    );
    expect(signBody(bytes, 'tf_test_public')).not.toBe(signBody(bytes, 'tf_live_other'));
  });
});

describe('webhookHeaders', () => {
  it('names the event, the job and the attempt next to the signature', () => {
    const body = webhookBody(completed, Buffer.from('x'));
    expect(webhookHeaders(body, 'ab12', 3)).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'Thumbforge-Webhook/1',
      'X-Service-Signature': 'ab12',
      'X-Thumbforge-Event': 'generation.completed',
      'X-Thumbforge-Job-Id': 'job_1',
      'X-Thumbforge-Delivery-Attempt': '3',
    });
  });
});

describe('Standard Webhooks signatures', () => {
  // The example of the Standard Webhooks specification.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const body = '{"test": 2432232314}';

  it('matches the specification example', () => {
    expect(standardSignature(secret, id, 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it.each([
    ['no secret: no headers', [], {}],
    [
      'one secret: one signature',
      [secret],
      {
        'webhook-id': id,
        'webhook-timestamp': '1614265330',
        'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      },
    ],
  ])('%s', (_name, secrets, expected) => {
    expect(standardWebhookHeaders(id, new Date(1614265330_500), body, secrets)).toEqual(expected);
  });

  it('signs with every active secret, space-separated', () => {
    const other = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const signature = standardWebhookHeaders(id, new Date(1614265330_000), body, [secret, other])[
      'webhook-signature'
    ]!;
    expect(signature.split(' ')).toEqual([
      standardSignature(secret, id, 1614265330, body),
      standardSignature(other, id, 1614265330, body),
    ]);
  });
});
