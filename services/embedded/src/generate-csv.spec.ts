import { describe, expect, it } from 'vitest';
import { CsvError, planCsvJobs } from './generate-csv.js';

describe('planCsvJobs', () => {
  it.each([
    [
      'a title column alone, with defaults',
      'title\nHello world\n',
      { format: 'x' },
      [{ row: 1, request: { title: 'Hello world', format: 'x' }, file: '/out/0001-hello-world.webp' }],
    ],
    [
      'quoted fields, booleans, png and a file name',
      'title,format,outputFormat,useLogo,filename\n"Commas, ""quotes""",youtube,png,TRUE,cover\n',
      {},
      [
        {
          row: 1,
          request: { title: 'Commas, "quotes"', format: 'youtube', outputFormat: 'png', useLogo: true },
          file: '/out/cover.png',
        },
      ],
    ],
    [
      'a reference set keeps its own format',
      'title,customAssetsId\nStyled,ref_1\n',
      { format: 'x' },
      [{ request: { title: 'Styled', customAssetsId: 'ref_1' } }],
    ],
    [
      'non-Latin titles get a fallback name',
      'title,format\nسلام,x\n',
      {},
      [{ file: '/out/0001-thumbnail.webp' }],
    ],
  ])('%s', (_name, csv, defaults, expected) => {
    expect(planCsvJobs(csv, '/out', defaults)).toMatchObject(expected);
  });

  it('derives one idempotency key per row and request, the same on every run', () => {
    const csv = 'title,format\nA,x\nA,x\nB,x\n';
    const keys = planCsvJobs(csv, '/out').map((job) => job.idempotencyKey);
    expect(new Set(keys).size).toBe(3);
    expect(planCsvJobs(csv, '/elsewhere').map((job) => job.idempotencyKey)).toEqual(keys);
    for (const key of keys) expect(key).toMatch(/^csv-[0-9a-f]{48}$/);
  });

  it.each([
    ['no rows', 'title\n', /no rows/],
    ['an unknown column', 'title,colour\nA,red\n', /unknown column\(s\) colour/],
    ['a row without a title', 'title,format\nA,x\n,x\n', /row 2 has no title/],
    ['a broken quote', 'title\n"open\n', /cannot be read/],
  ])('refuses %s', (_name, csv, message) => {
    expect(() => planCsvJobs(csv, '/out')).toThrow(CsvError);
    expect(() => planCsvJobs(csv, '/out')).toThrow(message);
  });
});
