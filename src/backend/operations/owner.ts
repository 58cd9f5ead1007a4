// Owner operations on this machine's own store: they take no credential and are never routed
// over HTTP; only a process with access to the data dir (the CLI) runs them.
import { z } from 'zod';
import { defineOperation, lazily } from '../operation.ts';
import * as credentials from '../credentials.ts';
import { SCOPES } from '../credentials.ts';

const tables = lazily(() => import('../tables.ts'));

/** One scope of an organization key. */
export const ScopeSchema = z.enum(SCOPES);

export const createOrg = defineOperation({
  name: 'createOrg',
  summary: 'A new organization with its first `*` key and the seeded demo table',
  caller: { kind: 'local' },
  input: z.object({ name: z.string().trim().min(1).max(120) }),
  output: z.object({ org_id: z.string(), api_key: z.string(), key_id: z.string() }),
  run: async (ctx, _caller, input) =>
    ctx.store.write(async () => {
      const created = await credentials.createOrg(ctx, input.name);
      await (await tables()).seedDemoTable(ctx, created.org_id);
      return created;
    }),
});

export const createApiKey = defineOperation({
  name: 'createApiKey',
  summary: 'An organization key; without an organization it is bound to none',
  caller: { kind: 'local' },
  input: z.object({
    org_id: z.string().nullable(),
    scopes: z.array(ScopeSchema).min(1),
  }),
  output: z.object({ api_key: z.string(), key_id: z.string() }),
  run: (ctx, _caller, input) => credentials.createApiKey(ctx, { orgId: input.org_id, scopes: input.scopes }),
});

export const revokeApiKey = defineOperation({
  name: 'revokeApiKey',
  summary: 'End one organization key',
  caller: { kind: 'local' },
  input: z.object({ key_id: z.string().min(1).max(128) }),
  output: z.object({ key_id: z.string(), revoked_at: z.string() }),
  run: (ctx, _caller, input) => credentials.revokeApiKey(ctx, input.key_id),
});
