// The sealed form of a share link's content (docs/SHARE.md), made on the sender's side and opened
// by the link's page in the browser: AES-256-GCM under a fresh 256-bit key that only the link's
// fragment carries. WebCrypto only, so the sender's runtime and the browser run the same steps.

/** Additional data of each sealed part: a name's ciphertext cannot pass for the content's. */
export const LINK_CONTENT_AAD = 'svc-link-v1 content';
export const LINK_NAME_AAD = 'svc-link-v1 name';
/** What the key check is an HMAC of. */
export const LINK_KEY_CHECK_TEXT = 'svc-link-v1 key check';

const IV_BYTES = 12;
const KEY_BYTES = 32;
const utf8 = new TextEncoder();

type WebKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
/** WebCrypto's types want bytes over a plain ArrayBuffer, which every array made here is. */
const bytesOf = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

export interface SealedLink {
  /** base64 of the IV, the ciphertext and the tag. */
  ciphertext_b64: string;
  name_ciphertext_b64?: string;
  /** 16 hex characters: lets the page refuse a mistyped link before it spends an open. */
  key_check: string;
  /** The fragment that opens it: the key in base64url, 43 characters. Never sent to the service. */
  fragment: string;
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const toBase64Url = (bytes: Uint8Array) =>
  toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** The key a fragment holds, or null when it is not one (a link cut short when copied). */
export function keyOfFragment(fragment: string): Uint8Array | null {
  const text = fragment.replace(/^#/, '');
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const bytes = fromBase64(text.replace(/-/g, '+').replace(/_/g, '/') + '=');
  return bytes.length === KEY_BYTES ? bytes : null;
}

async function aesKey(raw: Uint8Array, use: 'encrypt' | 'decrypt'): Promise<WebKey> {
  return await crypto.subtle.importKey('raw', bytesOf(raw), 'AES-GCM', false, [use]);
}

async function sealPart(key: WebKey, bytes: Uint8Array, aad: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: utf8.encode(aad) },
      key,
      bytesOf(bytes),
    ),
  );
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return toBase64(out);
}

async function openPart(key: WebKey, sealedB64: string, aad: string): Promise<Uint8Array> {
  const sealed = fromBase64(sealedB64);
  return new Uint8Array(
    await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.subarray(0, IV_BYTES), additionalData: utf8.encode(aad) },
      key,
      sealed.subarray(IV_BYTES),
    ),
  );
}

export async function keyCheckOf(raw: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey('raw', bytesOf(raw), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(LINK_KEY_CHECK_TEXT)));
  return Array.from(mac.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Seals content (and its file name, when there is one) under a fresh key. */
export async function sealForLink(content: Uint8Array, name?: string): Promise<SealedLink> {
  const raw = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const key = await aesKey(raw, 'encrypt');
  return {
    ciphertext_b64: await sealPart(key, content, LINK_CONTENT_AAD),
    ...(name === undefined
      ? {}
      : { name_ciphertext_b64: await sealPart(key, utf8.encode(name), LINK_NAME_AAD) }),
    key_check: await keyCheckOf(raw),
    fragment: toBase64Url(raw),
  };
}

/** Opens what a link released, with the key its fragment holds; throws if either was altered. */
export async function openFromLink(
  fragment: string,
  released: { ciphertext_b64: string; name_ciphertext_b64?: string | null },
): Promise<{ content: Uint8Array; name: string | null }> {
  const raw = keyOfFragment(fragment);
  if (!raw) throw new Error('the link has no key after `#`, or it was cut short');
  const key = await aesKey(raw, 'decrypt');
  return {
    content: await openPart(key, released.ciphertext_b64, LINK_CONTENT_AAD),
    name: released.name_ciphertext_b64
      ? new TextDecoder().decode(await openPart(key, released.name_ciphertext_b64, LINK_NAME_AAD))
      : null,
  };
}
