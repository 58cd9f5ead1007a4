// The sealed-file format: a second implementation's files, round trips over random contents and
// sizes (chunk boundaries included), and every tampering refused with its typed error.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHUNK_BYTES,
  HEADER_BYTES,
  MAX_CHUNK_BYTES,
  SealedFileError,
  TAG_BYTES,
  createHeader,
  hasSealedMagic,
  openStream,
  parseHeader,
  sealStream,
  sealedSize,
  type SealedFileCode,
  type SealedHeader,
} from '../../src/vault/sealed-file.ts';
import { readVectors, unhex } from '../vectors/read.ts';

interface Vectors {
  source: string;
  key: string;
  seal_id: string;
  nonce_prefix: string;
  chunk_bytes: number;
  cases: { name: string; plaintext: string; sealed: string }[];
}
const vectors = readVectors<Vectors>('svc-sealed-file-v1.json');

const newKey = (): KeyObject => createSecretKey(randomBytes(32));
const SMALL_CHUNK = 1024;

/** `bytes` handed over in pieces of the given sizes (then the rest): sources come in any shape. */
async function* piecesOf(bytes: Buffer, sizes: number[] = []): AsyncGenerator<Buffer> {
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    yield bytes.subarray(at, at + size);
    at += size;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

async function sealAll(key: KeyObject, header: SealedHeader, plaintext: Buffer, sizes?: number[]) {
  const out: Buffer[] = [];
  for await (const pieces of sealStream(key, header, piecesOf(plaintext, sizes))) out.push(...pieces);
  return Buffer.concat(out);
}

/** What a careful caller does: everything the stream gave, released only once it has returned. */
async function openAll(key: KeyObject, sealed: Buffer, sizes?: number[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const piece of openStream(piecesOf(sealed, sizes), () => key)) out.push(piece);
  return Buffer.concat(out);
}

async function refusal(attempt: Promise<unknown>): Promise<SealedFileError> {
  const outcome = await attempt.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(SealedFileError);
  return outcome as SealedFileError;
}

async function expectRefused(attempt: Promise<unknown>, ...codes: SealedFileCode[]): Promise<void> {
  const error = await refusal(attempt);
  expect(codes).toContain(error.code);
  expect(error.message.length).toBeGreaterThan(20);
}

/** One sealed file of `size` bytes under a fresh key, with its header and plaintext. */
async function sealedOf(size: number, chunk = SMALL_CHUNK) {
  const key = newKey();
  const header = createHeader(randomBytes(16), chunk);
  const plaintext = randomBytes(size);
  return { key, header, plaintext, sealed: await sealAll(key, header, plaintext) };
}

/** The offsets of each sealed chunk in a sealed file. */
function chunksOf(sealed: Buffer, chunk: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = HEADER_BYTES; at < sealed.length; at += chunk + TAG_BYTES) {
    out.push(sealed.subarray(at, at + chunk + TAG_BYTES));
  }
  return out;
}

describe('a second implementation of the format', () => {
  const key = createSecretKey(unhex(vectors.key));
  const headerOf = (sealed: Buffer) => parseHeader(sealed.subarray(0, HEADER_BYTES));

  it('cites its source and covers the empty file and the chunk boundary', () => {
    expect(vectors.source).toMatch(/Python's cryptography package/);
    expect(vectors.cases.map((c) => unhex(c.plaintext).length)).toEqual([0, 1, 1024, 2500]);
  });

  it.each(vectors.cases)('$name: seals to the same bytes and opens back', async ({ plaintext, sealed }) => {
    const expected = unhex(sealed);
    const header = headerOf(expected);
    expect(header).toMatchObject({ version: 1, chunkBytes: vectors.chunk_bytes });
    expect(header.sealId.toString('hex')).toBe(vectors.seal_id);
    expect(header.noncePrefix.toString('hex')).toBe(vectors.nonce_prefix);
    expect(await sealAll(key, header, unhex(plaintext))).toEqual(expected);
    expect(await openAll(key, expected)).toEqual(unhex(plaintext));
    expect(expected.length).toBe(sealedSize(unhex(plaintext).length, vectors.chunk_bytes));
  });
});

describe('the header', () => {
  it('is 40 bytes: magic, version, suite, chunk size, seal id, a fresh nonce prefix', () => {
    const id = randomBytes(16);
    const a = createHeader(id);
    const b = createHeader(id);
    expect(a.bytes).toHaveLength(HEADER_BYTES);
    expect(a.bytes.subarray(0, 8).toString('latin1')).toBe('\x89SVCSEAL');
    expect([...a.bytes.subarray(8, 12)]).toEqual([1, 1, 0, 0]);
    expect(a.bytes.readUInt32BE(12)).toBe(DEFAULT_CHUNK_BYTES);
    expect(a.sealId).toEqual(id);
    expect(a.noncePrefix).toHaveLength(7);
    expect(a.noncePrefix).not.toEqual(b.noncePrefix);
    expect(a.bytes[39]).toBe(0);
  });

  it('is recognised by its magic, which no UTF-8 text starts with', () => {
    expect(hasSealedMagic(createHeader(randomBytes(16)).bytes)).toBe(true);
    expect(hasSealedMagic(Buffer.from('SVCSEAL and more'))).toBe(false);
    expect(hasSealedMagic(Buffer.alloc(3))).toBe(false);
  });

  it('refuses a file that is not sealed, a version it does not know and damaged fields', () => {
    const good = createHeader(randomBytes(16)).bytes;
    const edit = (at: number, value: number) => {
      const copy = Buffer.from(good);
      copy[at] = value;
      return copy;
    };
    const codeOf = (bytes: Buffer) => {
      try {
        parseHeader(bytes);
        return 'parsed';
      } catch (error) {
        return (error as SealedFileError).code;
      }
    };
    expect(codeOf(Buffer.from('plain text, not sealed at all, forty bytes long'))).toBe('not_sealed');
    expect(codeOf(good.subarray(0, 20))).toBe('truncated');
    expect(codeOf(edit(8, 2))).toBe('unsupported');
    expect(codeOf(edit(9, 7))).toBe('unsupported');
    expect(codeOf(edit(10, 1))).toBe('malformed');
    expect(codeOf(edit(39, 1))).toBe('malformed');
    const huge = Buffer.from(good);
    huge.writeUInt32BE(MAX_CHUNK_BYTES + 1, 12);
    expect(codeOf(huge)).toBe('malformed');
    const tiny = Buffer.from(good);
    tiny.writeUInt32BE(16, 12);
    expect(codeOf(tiny)).toBe('malformed');
  });
});

describe('round trips', () => {
  const c = SMALL_CHUNK;
  it.each([0, 1, c - 1, c, c + 1, 2 * c, 3 * c + 7])(
    'a file of %i bytes opens to the same bytes and has the documented size',
    async (size) => {
      const { key, plaintext, sealed } = await sealedOf(size);
      expect(sealed.length).toBe(sealedSize(size, c));
      expect(await openAll(key, sealed)).toEqual(plaintext);
    },
  );

  it('the default 64 KiB chunk, around its boundary', async () => {
    for (const size of [DEFAULT_CHUNK_BYTES - 1, DEFAULT_CHUNK_BYTES, DEFAULT_CHUNK_BYTES + 1]) {
      const { key, plaintext, sealed } = await sealedOf(size, DEFAULT_CHUNK_BYTES);
      expect(sealed.length).toBe(sealedSize(size, DEFAULT_CHUNK_BYTES));
      expect((await openAll(key, sealed)).equals(plaintext)).toBe(true);
    }
  });

  it('random contents and sizes, fed in pieces of any size, open to the same bytes', async () => {
    const size = fc.oneof(
      fc.constantFrom(0, 1, c - 1, c, c + 1, 2 * c, 2 * c + 1),
      fc.integer({ min: 0, max: 5 * c }),
    );
    const pieces = fc.array(fc.integer({ min: 1, max: 3 * c }), { maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(size, pieces, pieces, async (n, sealPieces, openPieces) => {
        const key = newKey();
        const header = createHeader(randomBytes(16), c);
        const plaintext = randomBytes(n);
        const sealed = await sealAll(key, header, plaintext, sealPieces);
        expect(sealed.length).toBe(sealedSize(n, c));
        expect((await openAll(key, sealed, openPieces)).equals(plaintext)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

describe('tampering', () => {
  it('one flipped bit anywhere, header or chunk, is refused', async () => {
    const { key, sealed } = await sealedOf(2 * SMALL_CHUNK + 100);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: sealed.length * 8 - 1 }), async (bit) => {
        const copy = Buffer.from(sealed);
        copy[bit >> 3]! ^= 1 << (bit & 7);
        await expectRefused(openAll(key, copy), 'corrupt', 'not_sealed', 'unsupported', 'malformed');
      }),
      { numRuns: 300 },
    );
  });

  it('every truncation is refused, at a chunk boundary too', async () => {
    const { key, sealed } = await sealedOf(2 * SMALL_CHUNK + 100);
    for (let length = 0; length < sealed.length; length++) {
      await expectRefused(openAll(key, sealed.subarray(0, length)), 'corrupt', 'truncated', 'not_sealed');
    }
    const boundary = HEADER_BYTES + 2 * (SMALL_CHUNK + TAG_BYTES);
    const error = await refusal(openAll(key, sealed.subarray(0, boundary)));
    expect(error.code).toBe('truncated');
    expect(error.message).toContain('cut short');
    expect((await refusal(openAll(key, sealed.subarray(0, HEADER_BYTES)))).code).toBe('truncated');
  });

  it('an empty file cut to its header is refused', async () => {
    const { key, sealed } = await sealedOf(0);
    expect(sealed.length).toBe(HEADER_BYTES + TAG_BYTES);
    await expectRefused(openAll(key, sealed.subarray(0, HEADER_BYTES)), 'truncated');
  });

  it('swapped, dropped and repeated chunks are refused', async () => {
    const { key, header, sealed } = await sealedOf(3 * SMALL_CHUNK + 10);
    const [c0, c1, c2, c3] = chunksOf(sealed, SMALL_CHUNK) as [Buffer, Buffer, Buffer, Buffer];
    const file = (...chunks: Buffer[]) => Buffer.concat([header.bytes, ...chunks]);
    expect(await openAll(key, file(c0, c1, c2, c3))).toHaveLength(3 * SMALL_CHUNK + 10);
    await expectRefused(openAll(key, file(c1, c0, c2, c3)), 'corrupt');
    await expectRefused(openAll(key, file(c0, c2, c3)), 'corrupt');
    await expectRefused(openAll(key, file(c0, c1, c1, c2, c3)), 'corrupt');
    await expectRefused(openAll(key, file(c0, c1, c2)), 'truncated');
    await expectRefused(openAll(key, file(c0, c1, c3)), 'corrupt');
  });

  it('bytes after the final chunk are refused', async () => {
    const { key, sealed } = await sealedOf(100);
    await expectRefused(openAll(key, Buffer.concat([sealed, Buffer.from([0])])), 'trailing_data', 'corrupt');
    const twice = Buffer.concat([sealed, sealed.subarray(HEADER_BYTES)]);
    await expectRefused(openAll(key, twice), 'trailing_data', 'corrupt');
  });

  it('a header swapped for another seal of the same key, or edited, is refused', async () => {
    const key = newKey();
    const plaintext = randomBytes(SMALL_CHUNK + 5);
    const a = await sealAll(key, createHeader(randomBytes(16), SMALL_CHUNK), plaintext);
    const b = await sealAll(key, createHeader(randomBytes(16), SMALL_CHUNK), plaintext);
    const swapped = Buffer.concat([b.subarray(0, HEADER_BYTES), a.subarray(HEADER_BYTES)]);
    await expectRefused(openAll(key, swapped), 'corrupt');
    const resized = Buffer.from(a);
    resized.writeUInt32BE(2 * SMALL_CHUNK, 12);
    await expectRefused(openAll(key, resized), 'corrupt');
  });

  it('the wrong key is refused at the first chunk', async () => {
    const { sealed } = await sealedOf(10);
    const error = await refusal(openAll(newKey(), sealed));
    expect(error.code).toBe('corrupt');
    expect(error.message).toMatch(/chunk 0 .*another key/);
  });

  it('yields nothing of a chunk that does not authenticate', async () => {
    const { key, sealed } = await sealedOf(SMALL_CHUNK - 1);
    const copy = Buffer.from(sealed);
    copy[HEADER_BYTES + 3]! ^= 0x20;
    const given: Buffer[] = [];
    const attempt = (async () => {
      for await (const piece of openStream(piecesOf(copy), () => key)) given.push(piece);
    })();
    await expectRefused(attempt, 'corrupt');
    expect(given).toEqual([]);
  });
});
