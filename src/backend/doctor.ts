// `svc doctor`: where this computer's svc keeps what, and why: the data dir, the store, where the
// keys live (the OS keychain, or key files and the reason for the fallback), the signing key's id,
// and what the vault holds, counted. Never a key, a secret or a value.
import { statSync } from 'node:fs';
import { listSeals, type SealState } from './seal-files.ts';
import type { Service } from './service.ts';

export interface Checkup {
  data_dir: { path: string; chosen_by: string };
  store: { file: string; bytes: number; migrations: number };
  keys: { kind: 'keychain' | 'file'; location: string; why: string };
  signing_kid: string;
  sealed_files: Record<SealState, number>;
  vault_secrets: number;
  clean_copy_mappings: number;
}

/** The facts of this computer's svc, read from the opened service. */
export async function checkup(service: Service, env: NodeJS.ProcessEnv = process.env): Promise<Checkup> {
  const { ctx } = service;
  const count = async (sql: string) => (await ctx.store.get<{ n: number }>(sql))!.n;
  // Each seal's file is looked at: one opened back in place is no longer sealed, whatever the store says.
  const sealed: Record<SealState, number> = { sealed: 0, pending: 0, revoked: 0, opened: 0, missing: 0 };
  for (const seal of await listSeals(ctx, Number.MAX_SAFE_INTEGER)) sealed[seal.state]++;
  return {
    data_dir: {
      path: service.dataDir,
      chosen_by: env.SVC_HOME?.trim()
        ? 'SVC_HOME'
        : "this OS's per-user data folder (set SVC_HOME to choose another)",
    },
    store: {
      file: ctx.store.file,
      // With its write-ahead log: what was written lately is there until a checkpoint.
      bytes:
        statSync(ctx.store.file).size +
        (statSync(`${ctx.store.file}-wal`, { throwIfNoEntry: false })?.size ?? 0),
      migrations: await count('SELECT COUNT(*) AS n FROM schema_migrations'),
    },
    keys: {
      kind: service.vaultKind,
      location: ctx.vault.location,
      why:
        service.vaultKind === 'keychain'
          ? 'the OS keychain answers'
          : `files private to this user (0600), because ${service.vaultFallbackReason ?? 'they were chosen'}`,
    },
    signing_kid: ctx.signer.kid,
    sealed_files: sealed,
    vault_secrets: await count('SELECT COUNT(*) AS n FROM secrets'),
    clean_copy_mappings: await count('SELECT COUNT(*) AS n FROM clean_copies'),
  };
}
