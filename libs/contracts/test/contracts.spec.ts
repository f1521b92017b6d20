import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { GenerateRequestDto, normalizeGenerateRequest } from '../src/api/index.js';
import { costOf, dimensionsOf, generationIdFor, isoSeconds, newId, type Model } from '../src/index.js';

describe('costOf (spec §8)', () => {
  const cases: Array<[Model, boolean, boolean, string | null, number]> = [];
  for (const model of ['sd', 'hd'] as const)
    for (const usePhoto of [false, true])
      for (const useLogo of [false, true])
        for (const ref of [null, 'ref_1'])
          cases.push([
            model,
            usePhoto,
            useLogo,
            ref,
            (model === 'hd' ? 20 : 10) + 2 * (+usePhoto + +useLogo + +!!ref),
          ]);

  it.each(cases)(
    '%s photo=%s logo=%s ref=%s costs %i',
    (model, usePhoto, useLogo, customAssetsId, expected) => {
      expect(costOf({ model, usePhoto, useLogo, customAssetsId })).toBe(expected);
    },
  );

  it('matches the worked example: hd with photo, logo and reference set costs 26', () => {
    expect(costOf({ model: 'hd', usePhoto: true, useLogo: true, customAssetsId: 'ref_x' })).toBe(26);
  });
});

describe('dimensionsOf', () => {
  it.each([
    ['youtube', 1280, 720],
    ['blogpost', 1200, 630],
    ['linkedin', 1200, 627],
    ['x', 1200, 675],
    ['instagram', 1024, 1024],
  ] as const)('%s sd is %ix%i and hd exactly twice that', (format, width, height) => {
    expect(dimensionsOf(format, 'sd')).toEqual({ width, height });
    expect(dimensionsOf(format, 'hd')).toEqual({ width: width * 2, height: height * 2 });
  });
});

describe('ids', () => {
  it('are prefixed and sort by creation time', () => {
    const a = newId('job', 1_700_000_000_000);
    const b = newId('job', 1_700_000_000_001);
    expect(a).toMatch(/^job_[0-9A-Z]{26}$/);
    expect(a < b).toBe(true);
  });
  it('derive a stable generation id from a job id', () => {
    const job = newId('job');
    expect(generationIdFor(job)).toBe(`gen_${job.slice(4)}`);
    expect(generationIdFor(job)).toBe(generationIdFor(job));
  });
  it('format timestamps at second precision in UTC', () => {
    expect(isoSeconds(new Date('2026-04-27T14:30:00.123Z'))).toBe('2026-04-27T14:30:00Z');
  });
});

function validate(body: Record<string, unknown>): string[] {
  const dto = plainToInstance(GenerateRequestDto, body);
  return validateSync(dto).flatMap((e) => Object.values(e.constraints ?? {}));
}

describe('GenerateRequestDto', () => {
  it('accepts a minimal request', () => {
    expect(validate({ title: 'Hello', format: 'youtube' })).toEqual([]);
    expect(validate({ title: ' Two\nlines\t', format: 'youtube' })).toEqual([]);
    expect(validate({ title: '😀', format: 'youtube' })).toEqual([]);
    expect(validate({ title: 'नमस्ते', format: 'youtube' })).toEqual([]);
  });
  it.each([
    [{ format: 'youtube' }, 'title is required'],
    [{ title: '', format: 'youtube' }, 'title is required'],
    [{ title: 'x'.repeat(201), format: 'youtube' }, 'title must be at most 200 characters'],
    [{ title: 42, format: 'youtube' }, 'title must be a string'],
    [{ title: '   ', format: 'youtube' }, 'title must contain a visible character'],
    [{ title: '\t\n\r', format: 'youtube' }, 'title must contain a visible character'],
    [{ title: '\u0000\u0000', format: 'youtube' }, 'title must contain a visible character'],
    [
      { title: '\u200b\u200c\u200d\u2060\ufeff', format: 'youtube' },
      'title must contain a visible character',
    ],
    [
      { title: '\u00a0\u3000\u2028\u3164\u2800', format: 'youtube' },
      'title must contain a visible character',
    ],
    [{ title: 'Hello\u0000world', format: 'youtube' }, 'title must not contain control characters'],
    [{ title: 'Bell\u0007', format: 'youtube' }, 'title must not contain control characters'],
    [{ title: 'a' }, 'format must be one of youtube, instagram, x, blogpost, linkedin'],
    [{ title: 'a', format: 'YouTube' }, 'format must be one of youtube, instagram, x, blogpost, linkedin'],
    [{ title: 'a', format: 'youtube', category: 'cats' }, 'category must be one of'],
    [{ title: 'a', format: 'youtube', usePhoto: 'true' }, 'usePhoto must be a boolean'],
    [{ title: 'a', format: 'youtube', model: 'xl' }, 'model must be one of sd, hd'],
    [{ title: 'a', format: 'youtube', outputFormat: 'jpg' }, 'outputFormat must be one of webp, png'],
    [
      { title: 'a', format: 'youtube', webhookUrl: 'ftp://x.example/h' },
      'webhookUrl must be an absolute http or https URL',
    ],
    [
      { title: 'a', format: 'youtube', webhookUrl: '/relative' },
      'webhookUrl must be an absolute http or https URL',
    ],
  ])('rejects %j with "%s"', (body, message) => {
    expect(validate(body).join(' | ')).toContain(message);
  });
  it('ignores format, even an invalid one, when customAssetsId is given', () => {
    expect(validate({ title: 'a', customAssetsId: 'ref_1', format: 'nope' })).toEqual([]);
    expect(
      normalizeGenerateRequest(
        plainToInstance(GenerateRequestDto, { title: 'a', customAssetsId: 'ref_1', format: 'x' }),
      ).format,
    ).toBeNull();
  });
});

describe('normalizeGenerateRequest: defaults and legacy fields (spec §2.1)', () => {
  const norm = (body: Record<string, unknown>) =>
    normalizeGenerateRequest(plainToInstance(GenerateRequestDto, { title: 't', format: 'youtube', ...body }));

  it('applies defaults', () => {
    expect(norm({})).toMatchObject({
      category: 'auto',
      usePhoto: false,
      useLogo: false,
      model: 'sd',
      outputFormat: 'webp',
      webhookUrl: null,
    });
  });
  it.each([
    [{ imageStyle: 'faceless' }, { usePhoto: false, useLogo: false }],
    [
      { imageStyle: 'with-image', personImage: 'data:p' },
      { usePhoto: true, photoImage: 'data:p', logoImage: null },
    ],
    [
      { imageStyle: 'with-photo', personImage: 'data:p' },
      { usePhoto: true, photoImage: 'data:p' },
    ],
    [
      { imageStyle: 'with-logo', personImage: 'data:l' },
      { useLogo: true, logoImage: 'data:l', photoImage: null },
    ],
    [{ usePersonalPhoto: true }, { usePhoto: true, photoImage: null }],
    [{ imageStyle: 'with-photo', usePhoto: false }, { usePhoto: false }],
    [{ imageStyle: 'with-logo', personImage: 'data:l', logoImage: 'data:new' }, { logoImage: 'data:new' }],
    [
      { usePhoto: true, useLogo: true },
      { usePhoto: true, useLogo: true },
    ],
  ])('maps %j', (body, expected) => {
    expect(norm(body)).toMatchObject(expected);
  });
  it.each([
    [{ photoImage: 'data:p' }, [{ field: 'photoImage', dataUrl: 'data:p' }]],
    [{ logoImage: 'data:l', useLogo: false }, [{ field: 'logoImage', dataUrl: 'data:l' }]],
    [{ personImage: 'data:x' }, [{ field: 'personImage', dataUrl: 'data:x' }]],
    [{ imageStyle: 'faceless', personImage: 'data:x' }, [{ field: 'personImage', dataUrl: 'data:x' }]],
    [
      { imageStyle: 'with-logo', personImage: 'data:l', logoImage: 'data:new' },
      [{ field: 'personImage', dataUrl: 'data:l' }],
    ],
    [{ usePhoto: true, photoImage: 'data:p' }, []],
    [{ imageStyle: 'with-photo', personImage: 'data:p' }, []],
    [{}, []],
  ])('lists the images %j sends but does not use, so they are still validated', (body, unused) => {
    expect(norm(body).unusedImages).toEqual(unused);
  });
});
