// The sealed-file format: a header, then the file's bytes as AES-256-GCM chunks in the STREAM
// construction, sealed and opened as a stream in constant memory (docs/VAULT.md, byte by byte).
import { createCipheriv, createDecipheriv, KeyObject, randomBytes } from 'node:crypto';
import { VaultError } from './key-vault.ts';

/*
 * Layout (all integers big-endian):
 *
 *   header, 40 bytes, then chunk 0, chunk 1, ..., chunk n (the final one)
 *
 *   offset  size  field
 *   0       8     magic        89 53 56 43 53 45 41 4C  ("\x89SVCSEAL")
 *   8       1     version      01
 *   9       1     suite        01: AES-256-GCM, 16-byte tags, STREAM nonces as below
 *   10      2     reserved     00 00
 *   12      4     chunk size   plaintext bytes per chunk, 1 KiB to 16 MiB (64 KiB by default)
 *   16      16    seal id      names the seal, and with it the file's data key, in the store
 *   32      7     nonce prefix random, fresh for every seal
 *   39      1     reserved     00
 *
 *   chunk i = AES-256-GCM(key = the seal's data key, nonce = prefix ‖ uint32(i) ‖ last,
 *                         additional data = the 40 header bytes, plaintext) ‖ tag (16 bytes)
 *
 * `last` is 01 for the final chunk and 00 for every other. Every chunk but the final one holds
 * exactly `chunk size` bytes of plaintext; the final one holds fewer (0 up to chunk size - 1), so a
 * file whose size is a multiple of the chunk size ends with an empty final chunk. This is the STREAM
 * construction of Hoang, Reyhanitabar, Rogaway and Vizár ("Online Authenticated-Encryption and its
 * Nonce-Reuse Misuse-Resistance", CRYPTO 2015, section 7) over GCM: the counter in the nonce refuses
 * reordered, dropped or repeated chunks, the last flag refuses a file cut at a chunk boundary, and
 * the header as every chunk's additional data refuses a header altered or taken from another file.
 */

/** Not ASCII and not a valid first byte of UTF-8, so no text file starts with it (PNG's own trick). */
export const SEALED_MAGIC = Buffer.from([0x89, 0x53, 0x56, 0x43, 0x53, 0x45, 0x41, 0x4c]);
export const SEALED_VERSION = 1;
/** AES-256-GCM with 16-byte tags and prefix ‖ counter ‖ last nonces: the only suite of version 1. */
export const SUITE_AES256GCM_STREAM = 1;
export const HEADER_BYTES = 40;
export const SEAL_ID_BYTES = 16;
export const NONCE_PREFIX_BYTES = 7;
/** The full 128-bit tag (NIST SP 800-38D section 5.2.1.2). */
export const TAG_BYTES = 16;
/** 64 KiB: large enough that the per-chunk cost (a cipher set-up, a tag) stays small, small enough to stream. */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
export const MIN_CHUNK_BYTES = 1024;
/** The bound on what a header may make a reader allocate: a forged header cannot ask for more. */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
/** The counter is 32 bits: at 64 KiB a file may hold up to 256 TiB. */
export const MAX_CHUNKS = 2 ** 32;
const KEY_BYTES = 32;
const CIPHER = 'aes-256-gcm';

/**
 * The ways a sealed file fails to open: closed, so callers can branch on it. `not_sealed`: it does
 * not start with the magic. `unsupported`: a version or suite this code does not know. `malformed`:
 * a header field out of its range. `corrupt`: a chunk did not authenticate (altered, reordered,
 * dropped, cut inside a chunk, or sealed under another key: GCM cannot tell these apart).
 * `truncated`: the file ends before its final chunk. `trailing_data`: bytes after the final chunk.
 * `too_large`: more chunks than the counter can number.
 */
export type SealedFileCode =
  'not_sealed' | 'unsupported' | 'malformed' | 'corrupt' | 'truncated' | 'trailing_data' | 'too_large';

export class SealedFileError extends Error {
  readonly code: SealedFileCode;

  constructor(code: SealedFileCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'SealedFileError';
  }
}

export interface SealedHeader {
  version: number;
  chunkBytes: number;
  sealId: Buffer;
  noncePrefix: Buffer;
  /** The header exactly as stored: the additional data of every chunk. */
  bytes: Buffer;
}

/** Whether `prefix` (the first bytes of a file) starts like a sealed file. */
export function hasSealedMagic(prefix: Uint8Array): boolean {
  return prefix.length >= SEALED_MAGIC.length && SEALED_MAGIC.equals(prefix.subarray(0, SEALED_MAGIC.length));
}

/** A new header for a seal: `sealId` from the store, a fresh random nonce prefix. */
export function createHeader(sealId: Uint8Array, chunkBytes = DEFAULT_CHUNK_BYTES): SealedHeader {
  if (sealId.length !== SEAL_ID_BYTES) {
    throw new VaultError('invalid_key', `a seal id is ${SEAL_ID_BYTES} bytes`);
  }
  if (!Number.isInteger(chunkBytes) || chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES) {
    throw new VaultError('invalid_key', `a chunk is ${MIN_CHUNK_BYTES} to ${MAX_CHUNK_BYTES} bytes`);
  }
  const bytes = Buffer.alloc(HEADER_BYTES);
  SEALED_MAGIC.copy(bytes, 0);
  bytes.writeUInt8(SEALED_VERSION, 8);
  bytes.writeUInt8(SUITE_AES256GCM_STREAM, 9);
  bytes.writeUInt32BE(chunkBytes, 12);
  Buffer.from(sealId).copy(bytes, 16);
  randomBytes(NONCE_PREFIX_BYTES).copy(bytes, 32);
  return parseHeader(bytes);
}

/**
 * Reads a header from the first bytes of a file; refuses anything but a well-formed version 1
 * header. Nothing in it is trusted yet: the first chunk's tag authenticates it.
 */
export function parseHeader(prefix: Uint8Array): SealedHeader {
  if (!hasSealedMagic(prefix)) {
    throw new SealedFileError('not_sealed', "not a sealed file: it does not start with svc's seal header");
  }
  if (prefix.length < HEADER_BYTES) {
    throw new SealedFileError('truncated', 'the sealed file ends inside its header: it was cut short');
  }
  const bytes = Buffer.from(prefix.subarray(0, HEADER_BYTES));
  const version = bytes.readUInt8(8);
  if (version !== SEALED_VERSION || bytes.readUInt8(9) !== SUITE_AES256GCM_STREAM) {
    throw new SealedFileError(
      'unsupported',
      `sealed with format version ${version}, suite ${bytes.readUInt8(9)}, which this svc does not know: open it with the svc that sealed it, or upgrade`,
    );
  }
  const chunkBytes = bytes.readUInt32BE(12);
  if (bytes.readUInt16BE(10) !== 0 || bytes.readUInt8(39) !== 0) {
    throw new SealedFileError('malformed', 'the seal header is damaged: its reserved bytes are not zero');
  }
  if (chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES) {
    throw new SealedFileError('malformed', `the seal header is damaged: a chunk size of ${chunkBytes} bytes`);
  }
  return {
    version,
    chunkBytes,
    sealId: bytes.subarray(16, 32),
    noncePrefix: bytes.subarray(32, 39),
    bytes,
  };
}

/** prefix ‖ uint32(index) ‖ last: unique per chunk of one seal, so no nonce repeats under its key. */
function chunkNonce(header: SealedHeader, index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  header.noncePrefix.copy(nonce, 0);
  nonce.writeUInt32BE(index, NONCE_PREFIX_BYTES);
  nonce.writeUInt8(last ? 1 : 0, 11);
  return nonce;
}

function checkKey(key: KeyObject): KeyObject {
  if (!(key instanceof KeyObject) || key.type !== 'secret' || key.symmetricKeySize !== KEY_BYTES) {
    throw new VaultError('invalid_key', `a sealed file takes a ${KEY_BYTES}-byte AES-256 key`);
  }
  return key;
}

/** Seals one file's chunks in order; refuses anything the format would not open. */
export class ChunkSealer {
  private readonly key: KeyObject;
  readonly header: SealedHeader;
  private index = 0;
  private finished = false;

  constructor(key: KeyObject, header: SealedHeader) {
    this.key = checkKey(key);
    this.header = header;
  }

  /**
   * The next chunk sealed, as stored: its ciphertext, then its tag, two buffers that are written one
   * after the other (joining them would copy every byte once more, a quarter of the cost of
   * sealing). A chunk that is not last holds exactly a chunk's size.
   */
  seal(plaintext: Uint8Array, last: boolean): [ciphertext: Buffer, tag: Buffer] {
    const size = this.header.chunkBytes;
    if (this.finished) throw new VaultError('invalid_key', 'the final chunk is already sealed');
    if (last ? plaintext.length >= size : plaintext.length !== size) {
      throw new VaultError('invalid_key', `chunk ${this.index} has ${plaintext.length} bytes`);
    }
    if (this.index >= MAX_CHUNKS) {
      throw new SealedFileError('too_large', `a sealed file holds at most ${MAX_CHUNKS} chunks`);
    }
    const cipher = createCipheriv(CIPHER, this.key, chunkNonce(this.header, this.index, last), {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(this.header.bytes);
    const body = cipher.update(plaintext);
    // GCM is a counter mode: final() adds no bytes, it computes the tag.
    cipher.final();
    const tag = cipher.getAuthTag();
    this.index++;
    this.finished = last;
    return [body, tag];
  }

  get done(): boolean {
    return this.finished;
  }
}

/** Opens one file's chunks in order: each chunk's plaintext only once its tag holds. */
export class ChunkOpener {
  private readonly key: KeyObject;
  readonly header: SealedHeader;
  private index = 0;
  private finished = false;

  constructor(key: KeyObject, header: SealedHeader) {
    this.key = checkKey(key);
    this.header = header;
  }

  /** The sealed size of a chunk that is not the final one. */
  get fullChunkBytes(): number {
    return this.header.chunkBytes + TAG_BYTES;
  }

  open(sealed: Uint8Array, last: boolean): Buffer {
    if (this.finished) {
      throw new SealedFileError(
        'trailing_data',
        'bytes follow the final chunk: something was appended to the sealed file',
      );
    }
    if (this.index >= MAX_CHUNKS) {
      throw new SealedFileError('too_large', `a sealed file holds at most ${MAX_CHUNKS} chunks`);
    }
    const sealedSize = sealed.length;
    if (
      sealedSize < TAG_BYTES ||
      (last ? sealedSize >= this.fullChunkBytes : sealedSize !== this.fullChunkBytes)
    ) {
      throw this.corrupt();
    }
    const decipher = createDecipheriv(CIPHER, this.key, chunkNonce(this.header, this.index, last), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(this.header.bytes);
    decipher.setAuthTag(sealed.subarray(sealedSize - TAG_BYTES));
    const body = decipher.update(sealed.subarray(0, sealedSize - TAG_BYTES));
    try {
      // final() checks the tag; until it returns, `body` is unauthenticated and never leaves here.
      decipher.final();
    } catch {
      body.fill(0);
      throw this.corrupt();
    }
    this.index++;
    this.finished = last;
    return body;
  }

  /** Throws unless the final chunk has been opened: the file must not end early. */
  finish(): void {
    if (!this.finished) {
      const where = this.index === 0 ? 'its header' : `chunk ${this.index - 1}`;
      throw new SealedFileError(
        'truncated',
        `the sealed file ends after ${where} without its final chunk: it was cut short`,
      );
    }
  }

  private corrupt(): SealedFileError {
    return new SealedFileError(
      'corrupt',
      `chunk ${this.index} of the sealed file did not authenticate: the file was altered, cut or reordered, or it was sealed under another key; nothing of it is released`,
    );
  }
}

/**
 * Reads exact-size pieces from a stream of byte buffers of any size, holding at most one piece
 * and one buffer of the source: what keeps sealing and opening in constant memory.
 */
export class ExactReader {
  private readonly source: AsyncIterator<Uint8Array>;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.source = source[Symbol.asyncIterator]();
  }

  /** Exactly `size` bytes, or fewer only where the stream ends. */
  async read(size: number): Promise<Buffer> {
    while (this.pendingBytes < size && !this.ended) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else if (next.value.length > 0) {
        const piece = Buffer.isBuffer(next.value)
          ? next.value
          : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.length);
        this.pending.push(piece);
        this.pendingBytes += piece.length;
      }
    }
    const take = Math.min(size, this.pendingBytes);
    const first = this.pending[0];
    let out: Buffer;
    if (first && first.length === take) {
      out = first;
      this.pending.shift();
    } else if (first && first.length > take) {
      out = first.subarray(0, take);
      this.pending[0] = first.subarray(take);
    } else {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      out = all.subarray(0, take);
      this.pending = take < all.length ? [all.subarray(take)] : [];
    }
    this.pendingBytes -= take;
    return out;
  }

  /** Stops reading the source (an early exit of the caller). */
  async close(): Promise<void> {
    await this.source.return?.();
  }
}

/**
 * Seals a plaintext stream: yields the header (`[header]`), then each sealed chunk as its
 * ciphertext and tag (`[ciphertext, tag]`), the final chunk last. Written in order, the pieces are
 * the sealed file.
 */
export async function* sealStream(
  key: KeyObject,
  header: SealedHeader,
  source: AsyncIterable<Uint8Array>,
): AsyncGenerator<Buffer[]> {
  const sealer = new ChunkSealer(key, header);
  const reader = new ExactReader(source);
  try {
    yield [header.bytes];
    for (;;) {
      const plaintext = await reader.read(header.chunkBytes);
      const last = plaintext.length < header.chunkBytes;
      yield sealer.seal(plaintext, last);
      if (last) return;
    }
  } finally {
    await reader.close();
  }
}

/**
 * Opens a sealed stream: reads its header, takes the key `keyFor` gives for it, and yields each
 * chunk's plaintext once that chunk has authenticated. It throws (SealedFileError) at the first
 * chunk that does not, and at the end when the final chunk is missing or bytes follow it, so a
 * caller must hold back everything it was given until the generator has returned: only then is
 * the whole file authentic and complete.
 */
export async function* openStream(
  source: AsyncIterable<Uint8Array>,
  keyFor: (header: SealedHeader) => KeyObject | Promise<KeyObject>,
): AsyncGenerator<Buffer, SealedHeader> {
  const reader = new ExactReader(source);
  try {
    const header = parseHeader(await reader.read(HEADER_BYTES));
    const opener = new ChunkOpener(await keyFor(header), header);
    const full = opener.fullChunkBytes;
    for (;;) {
      const sealed = await reader.read(full);
      // A full-size chunk is never the final one; a short one always is (an empty read: none left).
      if (sealed.length === 0) opener.finish();
      const last = sealed.length < full;
      yield opener.open(sealed, last);
      if (last) break;
    }
    if ((await reader.read(1)).length > 0) {
      throw new SealedFileError(
        'trailing_data',
        'bytes follow the final chunk: something was appended to the sealed file',
      );
    }
    return header;
  } finally {
    await reader.close();
  }
}

/** The sealed size of `plaintextBytes` bytes: header, full chunks, and the final one's tag. */
export function sealedSize(plaintextBytes: number, chunkBytes = DEFAULT_CHUNK_BYTES): number {
  return HEADER_BYTES + plaintextBytes + (Math.floor(plaintextBytes / chunkBytes) + 1) * TAG_BYTES;
}

/**
 * The plaintext size of a sealed file of `sealedBytes` bytes, from its length alone (what it will
 * be if it opens): every chunk but the final one is full.
 */
export function plaintextSize(sealedBytes: number, chunkBytes: number): number {
  const body = Math.max(0, sealedBytes - HEADER_BYTES);
  const chunks = Math.max(1, Math.ceil(body / (chunkBytes + TAG_BYTES)));
  return Math.max(0, body - chunks * TAG_BYTES);
}
