// The vault backup (docs/VAULT.md, Recovery): what a new computer needs to open what this one
// sealed (the vault's secrets, the seals' wrapped keys and the vault secrets' sealed values), made
// from a data dir and put back into a new one. Sealing it to the recovery phrase is src/vault/recovery.ts.
import { timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { ensureDataDir } from '../config/paths.ts';
import { openVault } from '../vault/index.ts';
import { keyFingerprint, STORE_KEYS } from './core.ts';
import { nowIso, type Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { SEAL_ID, SECRET_NAME } from './vocabulary.ts';

export const VAULT_BACKUP_FORMAT = 'svc-vault-backup-v1';
/** A backup unpacks to at most this much: a forged one cannot make svc allocate more. */
const MAX_BACKUP_BYTES = 64 * 1024 * 1024;

const Hex32 = z.string().regex(/^[0-9a-f]{64}$/, 'a key is 64 lowercase hex characters');
const Text = z.string().max(8192);
const When = z.string().max(64);

const SealRow = z
  .object({
    seal_id: z.string().regex(SEAL_ID),
    path: Text,
    bytes: z.number().int().min(0),
    created_at: When,
    created_by: Text,
    sealed_at: When.nullable(),
    wrapped_key: z.string().max(1024).nullable(),
    revoked_at: When.nullable(),
    revoked_by: Text.nullable(),
    revoke_reason: Text.nullable(),
  })
  .strict();

const SecretRow = z
  .object({
    name: z.string().regex(SECRET_NAME),
    sealed_value: z.string().max(200_000),
    created_at: When,
    created_by: Text,
    updated_at: When,
    updated_by: Text,
  })
  .strict();

/** The backup's content, checked field by field before anything of it is written. */
export const VaultBackup = z
  .object({
    format: z.literal(VAULT_BACKUP_FORMAT),
    created_at: When,
    keys: z
      .object(
        Object.fromEntries(STORE_KEYS.map((name) => [name, Hex32])) as Record<
          (typeof STORE_KEYS)[number],
          typeof Hex32
        >,
      )
      .strict(),
    seals: z.array(SealRow),
    secrets: z.array(SecretRow),
  })
  .strict();
export type VaultBackup = z.infer<typeof VaultBackup>;

export interface BackupSummary {
  keys: number;
  seals: number;
  secrets: number;
}

/**
 * The backup of this data dir, gzipped JSON (the caller seals it, and wipes it after). This
 * computer's own seals only (an organization's seal names an organization this store keeps).
 */
export async function buildVaultBackup(ctx: Context): Promise<{ bytes: Buffer; summary: BackupSummary }> {
  const seals = await ctx.store.all<z.infer<typeof SealRow>>(
    `SELECT seal_id, path, bytes, created_at, created_by, sealed_at, wrapped_key, revoked_at, revoked_by, revoke_reason
     FROM seals WHERE org_id IS NULL ORDER BY created_at, seal_id`,
  );
  const secrets = await ctx.store.all<z.infer<typeof SecretRow>>(
    'SELECT name, sealed_value, created_at, created_by, updated_at, updated_by FROM secrets ORDER BY name',
  );
  const backup: VaultBackup = {
    format: VAULT_BACKUP_FORMAT,
    created_at: nowIso(ctx),
    keys: Object.fromEntries(
      STORE_KEYS.map((name) => [name, ctx.vault.secret(name).toString('hex')]),
    ) as VaultBackup['keys'],
    seals,
    secrets,
  };
  return {
    bytes: gzipSync(Buffer.from(JSON.stringify(backup), 'utf8')),
    summary: { keys: STORE_KEYS.length, seals: seals.length, secrets: secrets.length },
  };
}

/** Reads an opened backup; anything that is not one is refused before anything is written. */
export function parseVaultBackup(bytes: Buffer): VaultBackup {
  let json: unknown;
  try {
    json = JSON.parse(gunzipSync(bytes, { maxOutputLength: MAX_BACKUP_BYTES }).toString('utf8'));
  } catch {
    throw new ServiceError('sealed_corrupt', 'the recovery copy opened but does not hold a vault backup');
  }
  const parsed = VaultBackup.safeParse(json);
  if (!parsed.success) {
    throw new ServiceError(
      'sealed_corrupt',
      `the recovery copy is not a vault backup this svc reads (${parsed.error.issues[0]?.message ?? 'malformed'})`,
    );
  }
  return parsed.data;
}

/** Key fingerprints a data dir's store already records (none when it has no store yet). */
function recordedFingerprints(dataDir: string): Map<string, string> {
  const file = join(dataDir, 'svc.db');
  const found = new Map<string, string>();
  if (!existsSync(file)) return found;
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare('SELECT name, fingerprint FROM key_fingerprints').all() as {
      name: string;
      fingerprint: string;
    }[];
    for (const row of rows) found.set(row.name, row.fingerprint);
  } catch {
    // A store without the table has recorded no key yet.
  } finally {
    db.close();
  }
  return found;
}

export interface RestoredVault extends BackupSummary {
  data_dir: string;
  key_store: string;
  receipt_id: string;
}

/**
 * Puts a backup into a data dir: its keys into the vault (refused, with nothing written, when the
 * data dir already has other keys), then its seals and secrets into the store, with a receipt. Run
 * again after a crash it completes what was left: what is already there is kept.
 */
export async function restoreVaultBackup(
  dataDir: string,
  backup: VaultBackup,
  by: string,
): Promise<RestoredVault> {
  const keys = Object.fromEntries(STORE_KEYS.map((name) => [name, Buffer.from(backup.keys[name], 'hex')]));
  const recorded = recordedFingerprints(dataDir);
  const { vault } = openVault(ensureDataDir(dataDir));
  for (const name of STORE_KEYS) {
    const held = vault.existingSecret(name);
    const fingerprint = recorded.get(name);
    if (
      (held && !timingSafeEqual(held, keys[name]!)) ||
      (fingerprint && fingerprint !== keyFingerprint(keys[name]!))
    ) {
      throw new ServiceError(
        'conflict',
        `this data dir (${dataDir}) already has keys of its own, so nothing was restored: recover into a new data dir (set SVC_HOME to an empty folder)`,
      );
    }
  }
  for (const name of STORE_KEYS) vault.restoreSecret(name, keys[name]!);
  for (const key of Object.values(keys)) key.fill(0);

  const { Service } = await import('./service.ts');
  const service = new Service({ dataDir, vault });
  try {
    const { ctx } = service;
    const receipt = await ctx.store.write(async () => {
      for (const row of backup.seals) {
        await ctx.store.run(
          `INSERT OR IGNORE INTO seals (seal_id, org_id, path, bytes, created_at, created_by, sealed_at, wrapped_key, revoked_at, revoked_by, revoke_reason)
           VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          row.seal_id,
          row.path,
          row.bytes,
          row.created_at,
          row.created_by,
          row.sealed_at,
          row.wrapped_key,
          row.revoked_at,
          row.revoked_by,
          row.revoke_reason,
        );
      }
      for (const row of backup.secrets) {
        await ctx.store.run(
          `INSERT OR IGNORE INTO secrets (name, sealed_value, created_at, created_by, updated_at, updated_by)
           VALUES (?, ?, ?, ?, ?, ?)`,
          row.name,
          row.sealed_value,
          row.created_at,
          row.created_by,
          row.updated_at,
          row.updated_by,
        );
      }
      return ctx.chains.append('service', {
        kind: 'recovery.restore',
        org_id: null,
        signed_at: nowIso(ctx),
        body: {
          by,
          backup_created_at: backup.created_at,
          keys: STORE_KEYS.length,
          seals: backup.seals.length,
          secrets: backup.secrets.length,
        },
      });
    });
    return {
      data_dir: service.dataDir,
      key_store: ctx.vault.location,
      keys: STORE_KEYS.length,
      seals: backup.seals.length,
      secrets: backup.secrets.length,
      receipt_id: receipt.receipt_id,
    };
  } finally {
    service.close();
  }
}
