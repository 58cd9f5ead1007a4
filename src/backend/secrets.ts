// Vault secrets (docs/VAULT.md): named values that `svc run` injects into a command's environment.
// Each is kept only sealed, under a key derived from the vault and bound to its name; set, remove
// and every use are receipted on the service chain by name, never by value.
import type { KeyObject } from 'node:crypto';
import { deriveKey } from '../vault/derive.ts';
import { seal, unseal } from '../vault/seal.ts';
import { MIN_MASKED_LENGTH } from '../scan/mask.ts';
import { nowIso, type Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { SECRET_NAME } from './vocabulary.ts';

export { SECRET_NAME };

/** Values are for environment variables and tokens, not files: 64 KiB is far above any key. */
export const SECRET_MAX_BYTES = 64 * 1024;
/**
 * Shorter values cannot be masked in a command's output (mask.ts leaves forms shorter than this
 * alone, or they would match everywhere), so they are refused rather than leaked.
 */
export const SECRET_MIN_LENGTH = MIN_MASKED_LENGTH;

/** The salt of this computer's own secrets, the one `svc protect` uses: no organization id can take it. */
const MACHINE_SALT = 'svc-machine';

function secretsKey(ctx: Context): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), { purpose: 'svc-secret-v1', salt: MACHINE_SALT });
}

/** A sealed value names its secret as additional data: copied to another name's row, it does not open. */
const valueAad = (name: string) => Buffer.from(`svc-secret-value\u0000${name}`, 'utf8');

export function checkSecretName(name: string): string {
  if (typeof name !== 'string' || !SECRET_NAME.test(name)) {
    throw new ServiceError(
      'invalid_request',
      'a secret is named as the environment variable it becomes: A-Z, 0-9 and _, not starting with a digit, at most 128 characters',
    );
  }
  return name;
}

/** Refuses a value that could not be injected or masked; says why without repeating it. */
function checkValue(value: string): void {
  if (typeof value !== 'string' || value.length < SECRET_MIN_LENGTH) {
    throw new ServiceError(
      'invalid_request',
      `a secret's value is at least ${SECRET_MIN_LENGTH} characters: a shorter one could not be masked in a command's output`,
    );
  }
  if (Buffer.byteLength(value, 'utf8') > SECRET_MAX_BYTES) {
    throw new ServiceError('invalid_request', `a secret's value is at most ${SECRET_MAX_BYTES} bytes`);
  }
  // An environment variable cannot hold NUL: the value would be cut where the child reads it.
  if (value.includes('\u0000')) {
    throw new ServiceError('invalid_request', "a secret's value cannot hold a NUL character");
  }
}

interface SecretRow {
  name: string;
  sealed_value: string;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface SecretListing {
  name: string;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface SecretSet {
  name: string;
  /** False when a secret of that name was replaced. */
  created: boolean;
  receipt_id: string;
}

/** Sets `name` to `value`, replacing any value it had; receipted (`secret.set`) by name. */
export async function setSecret(
  ctx: Context,
  name: string,
  value: string,
  options: { by: string },
): Promise<SecretSet> {
  checkSecretName(name);
  checkValue(value);
  const sealed = seal(secretsKey(ctx), value, valueAad(name));
  return ctx.store.write(async () => {
    const at = nowIso(ctx);
    const had = await ctx.store.get<{ name: string }>('SELECT name FROM secrets WHERE name = ?', name);
    if (had) {
      await ctx.store.run(
        'UPDATE secrets SET sealed_value = ?, updated_at = ?, updated_by = ? WHERE name = ?',
        sealed,
        at,
        options.by,
        name,
      );
    } else {
      await ctx.store.run(
        'INSERT INTO secrets (name, sealed_value, created_at, created_by, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)',
        name,
        sealed,
        at,
        options.by,
        at,
        options.by,
      );
    }
    const receipt = await ctx.chains.append('service', {
      kind: 'secret.set',
      org_id: null,
      signed_at: at,
      body: { name, replaced: Boolean(had), by: options.by },
    });
    return { name, created: !had, receipt_id: receipt.receipt_id };
  });
}

/** The secrets of this store by name, with when and by whom each was set; never a value. */
export async function listSecrets(ctx: Context): Promise<SecretListing[]> {
  const rows = await ctx.store.all<SecretRow>('SELECT * FROM secrets ORDER BY name');
  return rows.map(({ name, created_at, created_by, updated_at, updated_by }) => ({
    name,
    created_at,
    created_by,
    updated_at,
    updated_by,
  }));
}

/**
 * Removes `name`: its sealed value is overwritten with zeros and deleted (with secure_delete, so
 * the freed page holds no trace) in the same write as its `secret.remove` receipt.
 */
export async function removeSecret(
  ctx: Context,
  name: string,
  options: { by: string },
): Promise<{ name: string; receipt_id: string }> {
  checkSecretName(name);
  const removed = await ctx.store.write(async () => {
    const row = await ctx.store.get<SecretRow>('SELECT * FROM secrets WHERE name = ?', name);
    if (!row) return null;
    ctx.store.db.exec('PRAGMA secure_delete = ON');
    try {
      await ctx.store.run(
        'UPDATE secrets SET sealed_value = ? WHERE name = ?',
        '0'.repeat(row.sealed_value.length),
        name,
      );
      await ctx.store.run('DELETE FROM secrets WHERE name = ?', name);
    } finally {
      ctx.store.db.exec('PRAGMA secure_delete = OFF');
    }
    return ctx.chains.append('service', {
      kind: 'secret.remove',
      org_id: null,
      signed_at: nowIso(ctx),
      body: { name, by: options.by },
    });
  });
  if (!removed) throw unknownSecret(name);
  // The log held the page with the sealed value: copied into the database file and emptied.
  try {
    ctx.store.readDb.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
  } catch {
    // Another reader holds the log: the next checkpoint empties it.
  }
  return { name, receipt_id: removed.receipt_id };
}

const unknownSecret = (name: string) =>
  new ServiceError('not_found', `no secret ${name} in this vault: \`svc secret list\` lists them`, {
    name,
  });

/** The names among `names` that this store holds no secret for. */
export async function missingSecrets(ctx: Context, names: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of names) {
    const row = await ctx.store.get<{ name: string }>('SELECT name FROM secrets WHERE name = ?', name);
    if (!row) missing.push(name);
  }
  return missing;
}

/**
 * The values of `names`, for a command about to run with them. Only the run core calls this, after
 * the gate's decisions; a value that does not open fails the whole call (fail closed).
 */
export async function secretValues(ctx: Context, names: readonly string[]): Promise<Map<string, string>> {
  const key = secretsKey(ctx);
  const values = new Map<string, string>();
  for (const name of names) {
    checkSecretName(name);
    const row = await ctx.store.get<SecretRow>('SELECT * FROM secrets WHERE name = ?', name);
    if (!row) throw unknownSecret(name);
    values.set(name, unseal(key, row.sealed_value, valueAad(name)));
  }
  return values;
}
