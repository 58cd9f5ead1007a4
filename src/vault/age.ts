// age files (C2SP age, age-encryption.org/v1): bytes encrypted to X25519 recipients or a passphrase
// (scrypt), binary or armored, and decrypted with identities or a passphrase. Pure: bytes in, bytes
// out, so the CLI, the tools and the archive share one implementation; errors have a closed set of codes.
import { Decrypter, Encrypter, armor } from 'age-encryption';
import { AGE_RECIPIENT } from './age-recipient.ts';

export { AGE_RECIPIENT };

/** The first line of every age file (C2SP age, "Header"). */
export const AGE_VERSION_LINE = 'age-encryption.org/v1\n';
/** The first line of the ASCII armor (C2SP age, "ASCII armor"), a strict subset of PEM. */
export const AGE_ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
/** A recipient stanza of the passphrase kind (C2SP age, "The scrypt recipient type"). */
const SCRYPT_STANZA = '\n-> scrypt ';
/** An identity line of an identity file as `age-keygen` writes it (upper-case Bech32). */
const AGE_IDENTITY = /^AGE-SECRET-KEY-(PQ-)?1[02-9AC-HJ-NP-Z]{20,}$/;

export type AgeErrorCode =
  | 'bad_recipient'
  | 'bad_identity'
  | 'empty_passphrase'
  | 'not_age'
  | 'corrupt'
  | 'wrong_passphrase'
  | 'needs_passphrase'
  | 'needs_identity'
  | 'no_identity_matches';

/** Why an age operation failed. Messages never hold a key, a passphrase or plaintext. */
export class AgeError extends Error {
  readonly code: AgeErrorCode;
  constructor(code: AgeErrorCode, message: string) {
    super(message);
    this.name = 'AgeError';
    this.code = code;
  }
}

/** Who can open what is encrypted: recipients (public keys), or one passphrase. */
export type AgeTo = { recipients: readonly string[] } | { passphrase: string };
/** What opens a file: identities (secret keys), or a passphrase. */
export type AgeWith = { identities: readonly string[] } | { passphrase: string };

export interface EncryptOptions {
  /** ASCII armor instead of binary: for mail, terminals, or text fields. */
  armor?: boolean;
  /**
   * log2 of scrypt's work factor for passphrases: age's own default (18) unless a test lowers it;
   * never above 20, which is the most `age` and this library accept to decrypt.
   */
  scryptLogN?: number;
}

/** Encrypts `plaintext` as an age file: binary, or armored text (as UTF-8 bytes). */
export async function encryptAge(
  plaintext: Uint8Array,
  to: AgeTo,
  options: EncryptOptions = {},
): Promise<Uint8Array> {
  const encrypter = new Encrypter();
  if ('passphrase' in to) {
    if (to.passphrase.length === 0) throw new AgeError('empty_passphrase', 'the passphrase is empty');
    encrypter.setPassphrase(to.passphrase);
    if (options.scryptLogN !== undefined) encrypter.setScryptWorkFactor(options.scryptLogN);
  } else {
    if (to.recipients.length === 0) throw new AgeError('bad_recipient', 'no recipient was given');
    for (const recipient of to.recipients) {
      // A recipient is public, so naming it helps; anything else (a secret key given by mistake) is never echoed.
      if (!AGE_RECIPIENT.test(recipient)) {
        const named = recipient.startsWith('age1') ? short(recipient) : 'a recipient';
        throw new AgeError('bad_recipient', `${named} is not an age recipient (age1…)`);
      }
      try {
        encrypter.addRecipient(recipient);
      } catch {
        throw new AgeError('bad_recipient', `${short(recipient)} is not a valid age recipient`);
      }
    }
  }
  let file: Uint8Array;
  try {
    file = await encrypter.encrypt(plaintext);
  } catch {
    // The recipient's checksum and key are checked only now, when its stanza is made.
    throw new AgeError('bad_recipient', 'a recipient is not a valid age public key');
  }
  return options.armor ? new TextEncoder().encode(armor.encode(file)) : file;
}

/** Whether `bytes` look like an age file, and in which form. */
export function ageFormOf(bytes: Uint8Array): 'binary' | 'armored' | null {
  const start = new TextDecoder('latin1').decode(bytes.subarray(0, 128));
  if (start.startsWith(AGE_VERSION_LINE)) return 'binary';
  // The armor may be preceded by white space (C2SP age, "ASCII armor").
  if (start.trimStart().startsWith(AGE_ARMOR_BEGIN)) return 'armored';
  return null;
}

/** Decrypts an age file, binary or armored. Nothing is returned unless every chunk authenticated. */
export async function decryptAge(file: Uint8Array, withKey: AgeWith): Promise<Uint8Array> {
  const form = ageFormOf(file);
  if (form === null) throw new AgeError('not_age', 'this is not an age file');
  let binary: Uint8Array;
  if (form === 'armored') {
    try {
      binary = armor.decode(new TextDecoder('utf-8', { fatal: true }).decode(file));
    } catch {
      throw new AgeError('corrupt', 'the armored age file is damaged (its armor does not decode)');
    }
  } else binary = file;

  const decrypter = new Decrypter();
  if ('passphrase' in withKey) {
    if (withKey.passphrase.length === 0) throw new AgeError('empty_passphrase', 'the passphrase is empty');
    decrypter.addPassphrase(withKey.passphrase);
  } else {
    if (withKey.identities.length === 0) throw new AgeError('bad_identity', 'no identity was given');
    for (const identity of withKey.identities) {
      if (!AGE_IDENTITY.test(identity))
        throw new AgeError('bad_identity', 'an identity is not AGE-SECRET-KEY-1…');
      decrypter.addIdentity(identity);
    }
  }
  const byPassphrase = headerOf(binary).includes(SCRYPT_STANZA);
  try {
    return await decrypter.decrypt(binary, 'uint8array');
  } catch (error) {
    const said = (error as Error).message ?? '';
    if (/no identity matched/.test(said)) {
      if ('passphrase' in withKey) {
        throw byPassphrase
          ? new AgeError('wrong_passphrase', 'the passphrase is wrong')
          : new AgeError(
              'needs_identity',
              'this file was encrypted to recipients: decrypt it with an identity',
            );
      }
      throw byPassphrase
        ? new AgeError(
            'needs_passphrase',
            'this file was encrypted with a passphrase: decrypt it with the passphrase',
          )
        : new AgeError('no_identity_matches', "none of the identities given is one of the file's recipients");
    }
    if (/invalid identity/.test(said))
      throw new AgeError('bad_identity', 'an identity is not a valid age secret key');
    // Anything else is a header or a payload that does not parse or authenticate: altered or cut.
    throw new AgeError('corrupt', 'the age file is damaged: altered or cut short');
  }
}

/**
 * The identities of an identity file as `age-keygen` writes it: one per line, `#` comments and
 * blank lines skipped. The file's content never appears in an error.
 */
export function parseIdentityFile(text: string): string[] {
  const identities: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!AGE_IDENTITY.test(line)) {
      throw new AgeError(
        'bad_identity',
        `line ${index + 1} of the identity file is not an age identity (AGE-SECRET-KEY-1…)`,
      );
    }
    identities.push(line);
  }
  if (identities.length === 0) throw new AgeError('bad_identity', 'the identity file holds no identity');
  return identities;
}

/** The header's text, up to its MAC line, for telling passphrase files from recipient files. */
function headerOf(binary: Uint8Array): string {
  const text = new TextDecoder('latin1').decode(binary.subarray(0, 64 * 1024));
  const end = text.indexOf('\n---');
  return end === -1 ? text : text.slice(0, end + 1);
}

const short = (text: string) => (text.length > 24 ? `${text.slice(0, 20)}…` : text);
