// Reading the vector files of test/vectors, and the shape of the values sealed by earlier code.
import { readFileSync } from 'node:fs';

export function readVectors<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as T;
}

export const unhex = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** One value of svc-sealed-at-rest-v1.json: how it was derived and sealed, and the stored text. */
export interface StoredSample {
  secret: 'data-columns' | 'capsules';
  derivation: { purpose: string; salt: string; context: string[] };
  hkdf: { salt_utf8: string; info_utf8: string };
  key: string;
  aad_utf8: string;
  plaintext_utf8: string;
  sealed: string;
}

/** The values sealed by the code before sealing moved to src/vault: they must keep opening. */
export const storedSamples = () =>
  readVectors<{
    secrets: Record<StoredSample['secret'], string>;
    column: StoredSample;
    capsule_document: StoredSample;
    source_credential: StoredSample;
  }>('svc-sealed-at-rest-v1.json');
