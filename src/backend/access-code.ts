// Access codes a person types to open something shared (a link, an exposure): kept only as a slow hash, so
// a copy of the store is slow to guess from, and compared in constant time.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number },
) => Promise<Buffer>;

/** scrypt's cost: about 30 ms a try here. */
const CODE_HASH = { N: 1 << 14, r: 8, p: 1 } as const;
const CODE_HASH_BYTES = 32;

/** The hash of a code under a salt; NFKC first, so a code typed on another keyboard still matches. */
export async function hashAccessCode(code: string, salt: Uint8Array): Promise<Buffer> {
  return await scryptAsync(code.normalize('NFKC'), Buffer.from(salt), CODE_HASH_BYTES, CODE_HASH);
}

/** A new code's salt and hash, to store. */
export async function keepAccessCode(code: string): Promise<{ salt: Buffer; hash: Buffer }> {
  const salt = randomBytes(16);
  return { salt, hash: await hashAccessCode(code, salt) };
}

export function sameAccessCode(stored: Uint8Array, computed: Uint8Array): boolean {
  return stored.length === computed.length && timingSafeEqual(Buffer.from(stored), Buffer.from(computed));
}
