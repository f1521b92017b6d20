import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RangeScanner, scanRange } from '../src/file/frame-scan.js';
import { encodeRecord } from '../src/file/frame.js';
import { testEvent } from '../src/testing/index.js';
import { tempDir } from './support.js';

/** Records as a segment holds them, one after another, and where each starts. */
function segmentOf(types: string[]): { buf: Buffer; positions: Uint32Array } {
  const frames = types.map((type, i) => encodeRecord({ ...testEvent(i), type }, i, types.length));
  const positions = new Uint32Array(frames.length);
  for (let i = 1; i < frames.length; i++) positions[i] = positions[i - 1] + frames[i - 1].length;
  return { buf: Buffer.concat(frames), positions };
}

/** The indexes `kept` lists, and whether each entry's position and length are its record's. */
function keptIndexes(kept: Uint32Array, buf: Buffer, positions: Uint32Array): number[] {
  const indexes = [];
  for (let k = 0; k < kept.length; k += 3) {
    const [index, at, length] = [kept[k], kept[k + 1], kept[k + 2]];
    expect(at).toBe(positions[index]);
    expect(length).toBe(buf.readUInt32BE(at));
    indexes.push(index);
  }
  return indexes;
}

describe('scanRange', () => {
  const types = ['a.kept', 'b.skipped', 'a.kept', 'c"escaped', 'b.skipped'];

  it.each([
    ['every record without a type filter', undefined, [0, 1, 2, 3, 4]],
    ['the wanted type, and one whose type needs the parser', ['a.kept'], [0, 2, 3]],
    ['none of a type no record has', ['z.none'], [3]],
  ])('keeps %s', (_, wanted, expected) => {
    const { buf, positions } = segmentOf(types);
    const scan = scanRange(buf, positions, wanted && new Set(wanted));
    expect(scan.corrupt).toBeUndefined();
    expect(keptIndexes(scan.kept, buf, positions)).toEqual(expected);
  });

  it.each([
    ['a flipped byte in a skipped record', 1, 20, 'checksum mismatch'],
    ['a zero length', 2, 0, 'bad length 0'],
  ])('stops at %s, keeping what came before', (_, index, byte, reason) => {
    const { buf, positions } = segmentOf(types);
    if (byte === 0) buf.writeUInt32BE(0, positions[index]);
    else buf[positions[index] + byte] ^= 0xff;
    const scan = scanRange(buf, positions, new Set(['a.kept']));
    expect(scan.corrupt).toEqual({ index, reason });
    expect(keptIndexes(scan.kept, buf, positions)).toEqual([0, 2].filter((i) => i < index));
  });

  it('reports a record cut short by the end of the range', () => {
    const { buf, positions } = segmentOf(types);
    const cut = buf.subarray(0, buf.length - 3);
    expect(scanRange(cut, positions, undefined).corrupt).toEqual({ index: 4, reason: 'truncated record' });
  });
});

describe('RangeScanner', () => {
  let scanner: RangeScanner | undefined;
  afterEach(async () => {
    await scanner?.close();
    scanner = undefined;
  });

  it('reads a range of a file on its thread and finds what scanRange finds there', async () => {
    const { buf, positions } = segmentOf(['a.kept', 'b.skipped', 'a.kept', 'b.skipped']);
    const path = join(await tempDir(), 'segment');
    // Bytes before and after the range: only [start, stop) is read.
    await writeFile(path, Buffer.concat([Buffer.from('junk'), buf, Buffer.from('more')]));
    scanner = new RangeScanner();
    const ranges = await Promise.all(
      [undefined, ['a.kept']].map((types) =>
        scanner!.scan({ path, start: 4, stop: 4 + buf.length, positions: positions.slice(), types }),
      ),
    );
    expect(ranges.map((range) => range.buf.equals(buf))).toEqual([true, true]);
    expect(keptIndexes(ranges[0].kept, buf, positions)).toEqual([0, 1, 2, 3]);
    expect(keptIndexes(ranges[1].kept, buf, positions)).toEqual([0, 2]);
    expect(ranges.map((range) => range.corrupt)).toEqual([undefined, undefined]);
  });

  it('answers a read it cannot do with an error, and a closed scanner with another', async () => {
    const dir = await tempDir();
    scanner = new RangeScanner();
    // A request hands its positions over to the worker: each gets its own.
    const request = (name: string) => ({
      path: join(dir, name),
      start: 0,
      stop: 10,
      positions: new Uint32Array([0]),
    });
    await expect(scanner.scan(request('missing'))).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, 'short'), 'abc');
    await expect(scanner.scan(request('short'))).rejects.toThrow(/short ended 7 bytes early/);
    await scanner.close();
    await expect(scanner.scan(request('short'))).rejects.toThrow(/closed/);
  });
});
