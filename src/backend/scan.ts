// A scan of a folder on this computer with the scanner's rule set, under this store's fingerprint
// key: what `svc scan` runs. The key is derived from the vault, so the same value has the same
// fingerprint in every scan this store makes, and nobody without the vault can test a guess
// against a fingerprint.
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { deriveKey } from '../vault/derive.ts';
import { RULES_MODULE } from '../scan/rules.ts';
import type { Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { scanFolder, type FolderScan, type FolderScanOptions } from './scan-folder.ts';

/** The fingerprint key of this store's scans (HKDF over the vault's data secret, its own purpose). */
export function scanKey(ctx: Context): Uint8Array {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-scan-fingerprint-v1',
    salt: 'svc',
  }).export();
}

/**
 * Scans a folder, or one file (as the only file of its folder's scan). A path that is not there
 * is refused with what to do.
 */
export type ScanPathOptions = Pick<FolderScanOptions, 'threads' | 'onProgress' | 'admit'>;

export async function scanPath(
  ctx: Context,
  path: string,
  options: ScanPathOptions = {},
): Promise<FolderScan> {
  const target = resolve(path);
  let isFile: boolean;
  try {
    isFile = statSync(target).isFile();
  } catch {
    throw new ServiceError('not_found', `nothing to scan at ${target}: give a folder or a file that exists`);
  }
  const scan = await scanFolder(isFile ? dirname(target) : target, {
    rules: RULES_MODULE,
    key: scanKey(ctx),
    ...options,
    ...(isFile ? { only: basename(target) } : {}),
  });
  return scan;
}
