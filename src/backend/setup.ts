// Setup records: this machine as a node of the organization, and acceptance of the terms.
import { readFileSync } from 'node:fs';
import { ServiceError } from './errors.ts';
import { newId, nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { sha256Hex } from './signer.ts';

export interface MachineFacts {
  /** A stable id of this machine that does not reveal it (see src/config/machine.ts). */
  machine_id: string;
  hostname: string;
  platform: string;
  arch: string;
}

interface NodeRow {
  id: string;
  machine_id: string;
  hostname: string;
  platform: string;
  arch: string;
  registered_at: string;
  last_seen_at: string;
}

const view = (row: NodeRow) => ({
  node_id: row.id,
  machine_id: row.machine_id,
  hostname: row.hostname,
  platform: row.platform,
  arch: row.arch,
  registered_at: row.registered_at,
  last_seen_at: row.last_seen_at,
});

/** Registers this machine once per organization; later calls refresh it and report it. */
export async function registerNode(ctx: Context, caller: OrgCaller, facts: MachineFacts) {
  return ctx.store.write(async () => {
    const now = nowIso(ctx);
    const existing = await ctx.store.get<NodeRow>(
      'SELECT * FROM nodes WHERE org_id = ? AND machine_id = ?',
      caller.orgId,
      facts.machine_id,
    );
    if (existing) {
      await ctx.store.run(
        'UPDATE nodes SET hostname = ?, platform = ?, arch = ?, last_seen_at = ? WHERE id = ?',
        facts.hostname,
        facts.platform,
        facts.arch,
        now,
        existing.id,
      );
    } else {
      await ctx.store.run(
        `INSERT INTO nodes (id, org_id, machine_id, hostname, platform, arch, registered_at, last_seen_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        newId('node'),
        caller.orgId,
        facts.machine_id,
        facts.hostname,
        facts.platform,
        facts.arch,
        now,
        now,
      );
    }
    const row = (await ctx.store.get<NodeRow>(
      'SELECT * FROM nodes WHERE org_id = ? AND machine_id = ?',
      caller.orgId,
      facts.machine_id,
    ))!;
    const nodes = (await ctx.store.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM nodes WHERE org_id = ?',
      caller.orgId,
    ))!.n;
    return { node: view(row), newly_registered: !existing, organization_nodes: nodes };
  });
}

/**
 * The terms in force: docs/TERMS.md, whose heading names the version. The service decides which
 * terms are current, so every client shows and accepts the same text.
 */
export function currentTerms(): Terms & { sha256: string } {
  const text = readFileSync(new URL('../../docs/TERMS.md', import.meta.url), 'utf8');
  const version = /\(version ([0-9-]+)\)/.exec(text)?.[1];
  if (!version) throw new ServiceError('internal', 'the terms name no version');
  return { version, text, sha256: sha256Hex(text) };
}

export interface Terms {
  version: string;
  text: string;
}

/** Records acceptance of one version of the terms with a signed receipt; accepting twice is a no-op. */
export async function acceptTerms(ctx: Context, caller: OrgCaller, terms: Terms) {
  return await receiptRefusals(ctx, () => accept(ctx, caller, terms));
}

async function accept(ctx: Context, caller: OrgCaller, terms: Terms) {
  const digest = sha256Hex(terms.text);
  const current = currentTerms();
  if (terms.version !== current.version || digest !== current.sha256) {
    throw new Refusal(
      'conflict',
      `these are not the terms in force (version ${current.version}): show them again and accept those`,
      { current_version: current.version },
      {
        kind: 'terms.accept.deny',
        org_id: caller.orgId,
        body: {
          ...actorOf(caller),
          terms_version: terms.version,
          terms_sha256: digest,
          current_version: current.version,
          reason: 'not_current',
        },
      },
    );
  }
  return ctx.store.write(async () => {
    const existing = await ctx.store.get<{ accepted_at: string; receipt_id: string }>(
      'SELECT accepted_at, receipt_id FROM terms_acceptances WHERE org_id = ? AND terms_version = ?',
      caller.orgId,
      terms.version,
    );
    if (existing) return { version: terms.version, sha256: digest, ...existing, newly_accepted: false };
    const acceptedAt = nowIso(ctx);
    const receipt = await ctx.chains.append('service', {
      kind: 'terms.accept',
      org_id: caller.orgId,
      signed_at: acceptedAt,
      body: {
        org_id: caller.orgId,
        key_id: caller.keyId,
        terms_version: terms.version,
        terms_sha256: digest,
      },
    });
    await ctx.store.run(
      'INSERT INTO terms_acceptances (id, org_id, terms_version, terms_sha256, accepted_at, receipt_id) VALUES (?, ?, ?, ?, ?, ?)',
      newId('terms'),
      caller.orgId,
      terms.version,
      digest,
      acceptedAt,
      receipt.receipt_id,
    );
    return {
      version: terms.version,
      sha256: digest,
      accepted_at: acceptedAt,
      receipt_id: receipt.receipt_id,
      newly_accepted: true,
    };
  });
}

export async function termsAcceptance(ctx: Context, caller: OrgCaller, version: string) {
  return (
    (await ctx.store.get<{ accepted_at: string; receipt_id: string }>(
      'SELECT accepted_at, receipt_id FROM terms_acceptances WHERE org_id = ? AND terms_version = ?',
      caller.orgId,
      version,
    )) ?? null
  );
}
