// The recovery phrase and the vault backup sealed to it (docs/VAULT.md, Recovery): 12 BIP39 words,
// the X25519 key pair HPKE derives from them, and the backup's sealed form. The service that keeps a
// copy holds only the public key and the sealed bytes.
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/** 128 bits of entropy: 12 words (BIP39: entropy + checksum, 11 bits a word). */
const PHRASE_ENTROPY_BITS = 128;
const PHRASE_WORDS = 12;
/**
 * HPKE `info` (RFC 9180 §5.1) of a vault backup: bound into the key schedule, so a backup never
 * opens as anything else sealed with the same suite (a Fabric envelope or an enroll challenge).
 */
export const VAULT_BACKUP_INFO = 'svc-vault-backup-v1';
/** RFC 9180 §7.1, Table 2: Nenc of DHKEM(X25519, HKDF-SHA256). */
const ENC_BYTES = 32;

// RFC 9180 base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM: the Fabric suite.
const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});
const INFO = new TextEncoder().encode(VAULT_BACKUP_INFO);

export class RecoveryError extends Error {
  /**
   * `invalid_phrase`: not 12 words of the BIP39 English list with a valid checksum (a typo, a word
   * left out). `corrupt_backup`: the sealed backup did not open with this phrase's key.
   */
  readonly code: 'invalid_phrase' | 'corrupt_backup';

  constructor(code: RecoveryError['code'], message: string) {
    super(message);
    this.code = code;
    this.name = 'RecoveryError';
  }
}

/** A new phrase: 12 words from 128 random bits. Shown once to the person; never stored by svc. */
export function newRecoveryPhrase(): string {
  return generateMnemonic(wordlist, PHRASE_ENTROPY_BITS);
}

/**
 * The phrase as BIP39 reads it: lower case, words separated by single spaces. A phrase that is not
 * 12 words of the list, or whose checksum fails, is refused with which word is wrong, never echoed.
 */
export function normalizePhrase(text: string): string {
  const words = text.normalize('NFKD').trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length !== PHRASE_WORDS) {
    throw new RecoveryError(
      'invalid_phrase',
      `a recovery phrase is ${PHRASE_WORDS} words; ${words.length} were given`,
    );
  }
  const unknown = words.findIndex((word) => !wordlist.includes(word));
  if (unknown >= 0) {
    throw new RecoveryError(
      'invalid_phrase',
      `word ${unknown + 1} of the phrase is not a word of the recovery word list: check its spelling`,
    );
  }
  const phrase = words.join(' ');
  if (!validateMnemonic(phrase, wordlist)) {
    throw new RecoveryError(
      'invalid_phrase',
      'the phrase does not check out (its last word carries a checksum of the others): a word is wrong or out of order',
    );
  }
  return phrase;
}

export interface RecoveryKeys {
  keyPair: Awaited<ReturnType<typeof suite.kem.deriveKeyPair>>;
  /** The X25519 public key, 32 raw bytes: what the service keeps (`pubkey_hex`). */
  publicKey: Uint8Array;
}

/**
 * The key pair of a phrase: the BIP39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, no passphrase) as the
 * input keying material of HPKE's DeriveKeyPair (RFC 9180 §7.1.3). The same words give the same
 * keys on any computer.
 */
export async function recoveryKeys(phrase: string): Promise<RecoveryKeys> {
  const seed = mnemonicToSeedSync(normalizePhrase(phrase));
  try {
    const keyPair = await suite.kem.deriveKeyPair(seed);
    const publicKey = new Uint8Array(await suite.kem.serializePublicKey(keyPair.publicKey));
    return { keyPair, publicKey };
  } finally {
    seed.fill(0);
  }
}

/** Seals a backup to a recovery public key (32 raw bytes): `enc ‖ ciphertext`, HPKE base mode. */
export async function sealVaultBackup(publicKey: Uint8Array, plaintext: Uint8Array): Promise<Buffer> {
  const recipientPublicKey = await suite.kem.deserializePublicKey(new Uint8Array(publicKey));
  const sealed = await suite.seal({ recipientPublicKey, info: INFO }, new Uint8Array(plaintext));
  return Buffer.concat([Buffer.from(sealed.enc), Buffer.from(sealed.ct)]);
}

/** Opens a sealed backup with a phrase's keys; RecoveryError `corrupt_backup` when it does not open. */
export async function openVaultBackup(keys: RecoveryKeys, sealed: Uint8Array): Promise<Buffer> {
  if (sealed.length <= ENC_BYTES) throw new RecoveryError('corrupt_backup', 'the recovery copy is too short');
  try {
    const plaintext = await suite.open(
      { recipientKey: keys.keyPair, enc: new Uint8Array(sealed.subarray(0, ENC_BYTES)), info: INFO },
      new Uint8Array(sealed.subarray(ENC_BYTES)),
    );
    return Buffer.from(plaintext);
  } catch {
    throw new RecoveryError(
      'corrupt_backup',
      'the recovery copy does not open with this phrase: it was altered, or sealed to another phrase',
    );
  }
}
