// The checksum GitHub puts at the end of its tokens (and npm, which took the same format in 2021):
// 30 random base62 characters, then the CRC-32 of those characters in base62, six characters
// padded with `0`. A token whose checksum holds is almost surely real, not a look-alike.
// Pure: no I/O and no `node:` imports.

/** CRC-32 as in ISO 3309 / ITU-T V.42 (the zlib and PNG one): reflected polynomial 0xEDB88320. */
const CRC32_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC32_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Digits, then upper case, then lower case: the order GitHub's description of the format gives. */
export const BASE62_UPPER_FIRST = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Digits, then lower case, then upper case: the order some base62 libraries use instead. */
export const BASE62_LOWER_FIRST = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function base62(n: number, width: number, alphabet = BASE62_UPPER_FIRST): string {
  let out = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 62)) out = alphabet[rest % 62]! + out;
  return out.padStart(width, '0');
}

/**
 * Whether the last six characters of `body` (what follows `ghp_`, `npm_`, ...) are the CRC-32 of
 * the rest. Both base62 digit orders are accepted, since the format's public description leaves
 * the order open.
 */
export function hasBase62Checksum(body: string): boolean {
  if (body.length !== 36) return false;
  const sum = crc32(body.slice(0, 30));
  const tail = body.slice(30);
  return tail === base62(sum, 6, BASE62_UPPER_FIRST) || tail === base62(sum, 6, BASE62_LOWER_FIRST);
}
