import { promisify } from 'node:util';
import { constants, inflateRaw, InflateRaw } from 'node:zlib';

const inflate = promisify(inflateRaw);

/** The native handle under a zlib stream, as Node 24's `lib/zlib.js` drives it. */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
}

type Engine = InflateRaw & { _handle?: ZlibHandle | null; _writeState?: Uint32Array };

/** The reused engine; `null` where this Node's streams lack the handle, `undefined` until tried. */
let engine: Engine | null | undefined;

function inPlaceEngine(): Engine | null {
  if (engine === undefined) {
    const candidate = new InflateRaw() as Engine;
    // A failed write destroys the stream, which then emits the error: reported by the write's result.
    candidate.on('error', () => undefined);
    engine =
      typeof candidate._handle?.writeSync === 'function' && candidate._writeState instanceof Uint32Array
        ? candidate
        : null;
  }
  return engine;
}

/** Whether this Node lets `inflateInto` write into the target itself (Node 24 does; a test holds it to that). */
export function inflatesInPlace(): boolean {
  return inPlaceEngine() !== null;
}

/**
 * Inflates raw-deflated `packed` into `target`, which it must fill exactly. zlib's public calls return
 * new buffers, and V8 counts every array buffer allocated towards its next full collection: unpacking
 * a 2.7 MB background into a fresh one (two, with an exact chunk size) started a full collection every
 * seven requests in embedded mode. Where this Node's zlib streams have the native handle, one reused
 * engine writes into `target` on the calling thread (about 2 ms for a youtube sd background) and
 * allocates nothing; elsewhere (`inPlace: false`, or another Node) the public call on libuv's threads,
 * with room to spare so that it allocates one buffer, copied over. Rejects bytes that are not a whole
 * stream of exactly `target`'s length.
 */
export async function inflateInto(
  packed: Uint8Array,
  target: Buffer,
  options: { inPlace?: boolean } = {},
): Promise<void> {
  const inPlace = (options.inPlace ?? true) ? inPlaceEngine() : null;
  if (!inPlace) {
    const unpacked = await inflate(packed, {
      chunkSize: target.length + 64,
      maxOutputLength: target.length + 1,
    }).catch((error: unknown) => {
      throw new Error(`packed bytes do not inflate: ${(error as Error).message}`, { cause: error });
    });
    if (unpacked.length !== target.length) throw lengthError(unpacked.length, target.length);
    unpacked.copy(target);
    return;
  }
  inPlace.reset();
  inPlace._handle!.writeSync(constants.Z_FINISH, packed, 0, packed.length, target, 0, target.length);
  const [outLeft, inLeft] = inPlace._writeState!;
  if (!inPlace._handle) {
    // Destroyed by the error (corrupt or truncated bytes): the next call starts a new engine.
    engine = undefined;
    throw new Error('packed bytes are not a valid deflate stream');
  }
  if (outLeft !== 0 || inLeft !== 0) throw lengthError(target.length - outLeft, target.length, inLeft > 0);
}

function lengthError(got: number, want: number, more = false): Error {
  return new Error(`packed bytes inflate to ${more ? 'more than ' : ''}${got} bytes, expected ${want}`);
}
