// The service core in one object: every interface (HTTP, CLI, MCP, SDK-in-process) calls this.
import { join } from 'node:path';
import { ensureDataDir } from '../config/paths.ts';
import {
  hasKeyFiles,
  openVault,
  VaultError,
  type KeyVault,
  type OpenedVault,
  type VaultKind,
} from '../vault/index.ts';
import { Store, type StoreOptions } from './store/db.ts';
import { ServiceSigner, sha256Hex } from './signer.ts';
import { Chains } from './chains.ts';
import type { Clock, Context } from './context.ts';
import { ServiceError } from './errors.ts';
import * as credentials from './credentials.ts';
import * as governance from './governance.ts';
import * as tables from './tables.ts';
import * as fabric from './fabric.ts';
import * as documents from './documents.ts';
import * as capsules from './capsules.ts';
import * as recovery from './recovery.ts';
import * as usage from './usage.ts';
import * as setup from './setup.ts';
import * as sources from './sources.ts';
import * as connect from './connect.ts';
import type { Principal } from './credentials.ts';

export interface ServiceOptions {
  dataDir: string;
  clock?: Clock;
  vault?: KeyVault;
  store?: StoreOptions;
}

/** Every key the vault holds for this store: the signing key and the two data keys. */
const STORE_KEYS = ['service-signing-ed25519', 'data-columns', 'capsules'] as const;

/**
 * Records each key's fingerprint on first use and refuses to run on keys that differ: a data dir
 * whose keys/ was lost or replaced would otherwise sign and seal under new keys, and every older
 * receipt and sealed value would stop checking out.
 */
function checkKeysMatchStore(store: Store, vault: KeyVault, clock: Clock): void {
  store.transaction(() => {
    for (const name of STORE_KEYS) {
      const secret = vault.secret(name);
      const fingerprint = sha256Hex(Buffer.concat([Buffer.from('svc-key-fingerprint\u0000'), secret])).slice(
        0,
        16,
      );
      const recorded = store.get<{ fingerprint: string }>(
        'SELECT fingerprint FROM key_fingerprints WHERE name = ?',
        name,
      );
      if (!recorded) {
        store.run(
          'INSERT INTO key_fingerprints (name, fingerprint, recorded_at) VALUES (?, ?, ?)',
          name,
          fingerprint,
          clock().toISOString(),
        );
      } else if (recorded.fingerprint !== fingerprint) {
        throw new VaultError(
          'corrupt_key',
          `key \`${name}\` in ${vault.location} is not the one this store was written with; restore keys/ from the backup that matches svc.db`,
        );
      }
    }
  });
}

export class Service {
  readonly ctx: Context;
  readonly dataDir: string;
  /** Where the keys live: the OS keychain, or key files in the data dir (the fallback). */
  readonly vaultKind: VaultKind;
  readonly vaultFallbackReason: string | null;

  constructor(options: ServiceOptions) {
    this.dataDir = ensureDataDir(options.dataDir);
    const opened: OpenedVault = options.vault
      ? { vault: options.vault, kind: 'file', fallback_reason: 'a vault given by the caller' }
      : openVault(this.dataDir);
    this.vaultKind = opened.kind;
    this.vaultFallbackReason = opened.fallback_reason;
    const store = new Store(join(this.dataDir, 'svc.db'), options.store);
    try {
      // A store written with keychain keys, opened where no keychain answers, must not get new
      // key files: they would be refused anyway, and would pin the data dir to files for good.
      // (Key files made meanwhile by another process starting on the same new data dir are fine.)
      const written = store.get<{ n: number }>('SELECT COUNT(*) AS n FROM key_fingerprints')!.n > 0;
      const fallback = opened.kind === 'file' && opened.fallback_reason?.startsWith('no OS keychain');
      if (written && fallback && !hasKeyFiles(this.dataDir)) {
        throw new VaultError(
          'unavailable',
          `this store's keys are in the OS keychain, which does not answer here (${opened.fallback_reason}); unlock it and retry`,
        );
      }
      // Keys are created (first run) and checked under the store's write lock, so processes
      // starting together on a new data dir agree on one set of keys.
      checkKeysMatchStore(store, opened.vault, options.clock ?? (() => new Date()));
    } catch (error) {
      store.close();
      throw error;
    }
    const signer = new ServiceSigner(opened.vault);
    this.ctx = {
      store,
      vault: opened.vault,
      signer,
      chains: new Chains(store, signer),
      clock: options.clock ?? (() => new Date()),
    };
  }

  close(): void {
    this.ctx.store.close();
  }

  authenticate(authorization: string | undefined): Principal {
    return credentials.authenticate(this.ctx, authorization);
  }

  // ------------------------------------------------------------ owner bootstrap (local)

  /** A new organization with its first `*` key and the seeded demo table. */
  createOrg(name: string): { org_id: string; api_key: string; key_id: string } {
    return this.ctx.store.transaction(() => {
      const created = credentials.createOrg(this.ctx, name);
      tables.seedDemoTable(this.ctx, created.org_id);
      return created;
    });
  }

  createApiKey(orgId: string | null, scopes: credentials.Scope[]): { api_key: string; key_id: string } {
    return credentials.createApiKey(this.ctx, { orgId, scopes });
  }

  /** Local owner action (the CLI on this machine's store): ends one organization key. */
  revokeApiKey(keyId: string) {
    return credentials.revokeApiKey(this.ctx, keyId);
  }

  // ------------------------------------------------------------ setup (this machine, the terms)

  registerNode(principal: Principal, facts: setup.MachineFacts) {
    return setup.registerNode(this.ctx, credentials.requireOrgKey(principal, 'governance'), facts);
  }

  acceptTerms(principal: Principal, terms: setup.Terms) {
    return setup.acceptTerms(this.ctx, credentials.requireOrgKey(principal, 'governance'), terms);
  }

  termsAcceptance(principal: Principal, version: string) {
    return setup.termsAcceptance(this.ctx, credentials.requireOrgKey(principal, 'governance'), version);
  }

  // ------------------------------------------------------------ connecting a computer (no credential to start)

  startConnect(machine: setup.MachineFacts) {
    return connect.startConnect(this.ctx, machine);
  }

  describeConnect(userCode: string) {
    return connect.describeRequest(this.ctx, userCode);
  }

  decideConnect(userCode: string, decision: 'approve' | 'deny', approverBearer?: string) {
    const approver = decision === 'approve' ? this.authenticate(approverBearer) : undefined;
    return connect.decide(this.ctx, userCode, decision, approver);
  }

  pollConnect(deviceCode: string) {
    return connect.pollConnect(this.ctx, deviceCode);
  }

  // ------------------------------------------------------------ sources (external APIs)

  registerSource(principal: Principal, input: sources.SourceInput) {
    return sources.registerSource(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  listSources(principal: Principal) {
    return sources.listSources(this.ctx, credentials.requireOrgKey(principal, 'governance'));
  }

  callSource(principal: Principal, input: sources.CallInput) {
    return sources.callSource(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  useCapability(principal: Principal, input: sources.CallInput) {
    return sources.useCapability(this.ctx, credentials.requireAgent(principal), input);
  }

  // ------------------------------------------------------------ governance

  createGrant(principal: Principal, input: governance.GrantInput) {
    return governance.createGrant(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  listAgents(principal: Principal) {
    return governance.roster(this.ctx, credentials.requireOrgKey(principal, 'governance'));
  }

  policyBoard(principal: Principal) {
    return governance.policyBoard(this.ctx, credentials.requireOrgKey(principal, 'governance'));
  }

  listProofs(principal: Principal, options: { limit?: number; before?: number } = {}) {
    return governance.listProofs(this.ctx, credentials.requireOrgKey(principal, 'governance'), options);
  }

  /** Who a credential is, for status pages: never the credential itself. */
  whoami(principal: Principal) {
    if (principal.kind === 'agent') {
      return {
        kind: 'agent' as const,
        org_id: principal.orgId,
        handle: principal.handle,
        jti: principal.jti,
        grant: principal.grant,
      };
    }
    const org = principal.orgId
      ? this.ctx.store.get<{ id: string; name: string }>(
          'SELECT id, name FROM orgs WHERE id = ?',
          principal.orgId,
        )
      : undefined;
    return {
      kind: 'organization_key' as const,
      org_id: org?.id ?? null,
      org_name: org?.name ?? null,
      scopes: principal.scopes,
    };
  }

  revokeAgent(principal: Principal, target: string) {
    return governance.revoke(this.ctx, credentials.requireOrgKey(principal, 'governance'), target);
  }

  compute(principal: Principal, input: governance.ComputeInput, withReceipt: boolean) {
    return governance.compute(this.ctx, credentials.requireAgent(principal), input, withReceipt);
  }

  read(principal: Principal, handle: string, input: governance.ReadInput) {
    return governance.read(this.ctx, credentials.requireAgent(principal, handle), input);
  }

  /**
   * Prompt-ready retrieval: plans the read against the grant, then reads only the columns the plan
   * allows, so withheld columns are named but never read. Nothing allowed means nothing read.
   */
  retrieve(principal: Principal, input: Partial<governance.ReadInput>) {
    const agent = credentials.requireAgent(principal);
    const tableName = input.table ?? agent.grant.table;
    const table = tables.getTable(this.ctx, agent.orgId, tableName);
    if (!table)
      throw new ServiceError(
        'unknown_table',
        `no table \`${tableName}\` is registered for this organization`,
      );
    const plan = governance.decide(table, agent.grant, {
      action: 'read',
      columns: input.columns,
      where: input.where,
    });
    if (plan.decision === 'deny') return { table: tableName, plan, rows: [], count: 0, audit: null };
    const read = governance.read(this.ctx, agent, {
      table: tableName,
      columns: plan.allowed.columns,
      where: input.where,
      limit: input.limit,
      purpose: input.purpose,
    });
    return { table: tableName, plan, ...read };
  }

  registerTable(principal: Principal, table: tables.TableInfo) {
    return tables.registerTable(this.ctx, credentials.requireOrgKey(principal, 'governance').orgId, table);
  }

  loadRows(principal: Principal, table: string, rows: Record<string, unknown>[]) {
    return tables.loadRows(this.ctx, credentials.requireOrgKey(principal, 'governance').orgId, table, rows);
  }

  listTables(principal: Principal) {
    const tablesOfOrg = tables.listTables(this.ctx, credentials.requireOrgKey(principal, 'governance').orgId);
    return { ok: true, count: tablesOfOrg.length, tables: tablesOfOrg };
  }

  // ------------------------------------------------------------ fabric

  enroll(principal: Principal, handle: string, pubkeyHex: string) {
    return fabric.enroll(this.ctx, credentials.requireAgent(principal, handle), pubkeyHex);
  }

  listFabricGrants(principal: Principal) {
    return fabric.listFabricGrants(this.ctx, credentials.requireOrgKey(principal, 'fabric'));
  }

  createFabricGrant(principal: Principal, input: fabric.FabricGrantInput) {
    return fabric.createFabricGrant(this.ctx, credentials.requireOrgKey(principal, 'fabric'), input);
  }

  revokeFabricGrant(principal: Principal, grantId: string, reason?: string) {
    return fabric.revokeFabricGrant(
      this.ctx,
      credentials.requireOrgKey(principal, 'fabric'),
      grantId,
      reason,
    );
  }

  send(principal: Principal, handle: string, input: fabric.SendInput) {
    return fabric.send(this.ctx, credentials.requireAgent(principal, handle), input);
  }

  inbox(principal: Principal, handle: string) {
    return fabric.inbox(this.ctx, credentials.requireAgent(principal, handle));
  }

  /** A deny is returned as a ServiceError carrying its reasons and signed receipt. */
  fetch(principal: Principal, handle: string, blobId: string) {
    const result = fabric.fetchEnvelope(this.ctx, credentials.requireAgent(principal, handle), blobId);
    if (result.outcome === 'deny') {
      throw new ServiceError(
        'fabric_denied',
        `the Fabric gate refused this fetch: ${result.reasons.join(', ')}`,
        {
          reasons: result.reasons,
          receipt_id: result.receipt.receipt_id,
          receipt: result.receipt,
        },
      );
    }
    const { envelope, reasons, receipt } = result;
    return {
      ...envelope,
      decision: { outcome: 'allow' as const, reasons, receipt_id: receipt.receipt_id },
      receipt,
    };
  }

  // ------------------------------------------------------------ documents, capsules, recovery, usage

  computeDocuments(principal: Principal, input: documents.DocumentsInput) {
    return documents.computeDocuments(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  createCapsule(principal: Principal, name: string) {
    return capsules.createCapsule(this.ctx, credentials.requireOrgKey(principal, 'governance'), name);
  }

  listCapsules(principal: Principal) {
    return capsules.listCapsules(this.ctx, credentials.requireOrgKey(principal, 'governance'));
  }

  getCapsule(principal: Principal, id: string) {
    return capsules.getCapsule(this.ctx, credentials.requireOrgKey(principal, 'governance'), id);
  }

  addCapsuleDocument(principal: Principal, id: string, input: { title: string; text: string }) {
    return capsules.addDocument(this.ctx, credentials.requireOrgKey(principal, 'governance'), id, input);
  }

  addCapsuleMember(principal: Principal, id: string, input: { email: string; role: capsules.MemberRole }) {
    return capsules.addMember(this.ctx, credentials.requireOrgKey(principal, 'governance'), id, input);
  }

  addCapsuleAiGrant(
    principal: Principal,
    id: string,
    input: { agent: string; documents?: string[] | undefined },
  ) {
    return capsules.addAiGrant(this.ctx, credentials.requireOrgKey(principal, 'governance'), id, input);
  }

  revokeCapsule(principal: Principal, id: string) {
    return capsules.revokeCapsule(this.ctx, credentials.requireOrgKey(principal, 'governance'), id);
  }

  setRecoveryKey(principal: Principal, pubkeyHex: string) {
    return recovery.setRecoveryKey(this.ctx, credentials.requireOrgKey(principal, 'governance'), pubkeyHex);
  }

  storeRecoveryCopy(principal: Principal, input: { ciphertext_b64: string; label?: string | undefined }) {
    return recovery.storeRecoveryCopy(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  recordRecoveryEvent(
    principal: Principal,
    input: { kind: recovery.RecoveryEventKind; detail?: Record<string, string> | undefined },
  ) {
    return recovery.recordRecoveryEvent(this.ctx, credentials.requireOrgKey(principal, 'governance'), input);
  }

  recoveryState(principal: Principal) {
    return recovery.recoveryState(this.ctx, credentials.requireOrgKey(principal, 'governance'));
  }

  invoice(principal: Principal, period?: string) {
    return usage.invoice(this.ctx, credentials.requireOrgKey(principal, 'usage').orgId, period);
  }

  overview(principal: Principal) {
    const caller = credentials.requireOrgKey(principal, 'usage');
    const { store } = this.ctx;
    const count = (sql: string) => store.get<{ n: number }>(sql, caller.orgId)!.n;
    const meter = usage.invoice(this.ctx, caller.orgId);
    return {
      ok: true,
      org_id: caller.orgId,
      period: meter.period,
      decisions: meter.decisions,
      free_allowance: meter.free_allowance,
      remaining_free_decisions: meter.remaining_free_decisions,
      billable_decisions: meter.billable_decisions,
      unmetered_actions: meter.unmetered_actions,
      agents: {
        total: count('SELECT COUNT(*) AS n FROM agents WHERE org_id = ?'),
        active: count("SELECT COUNT(*) AS n FROM agents WHERE org_id = ? AND status = 'active'"),
        fabric_enrolled: count(
          'SELECT COUNT(*) AS n FROM agents WHERE org_id = ? AND fabric_kid IS NOT NULL',
        ),
      },
      tables: count('SELECT COUNT(*) AS n FROM data_tables WHERE org_id = ?'),
      capsules: {
        total: count('SELECT COUNT(*) AS n FROM capsules WHERE org_id = ?'),
        active: count("SELECT COUNT(*) AS n FROM capsules WHERE org_id = ? AND status = 'active'"),
      },
      receipts: count('SELECT COUNT(*) AS n FROM service_chain WHERE org_id = ?'),
      audit_rows: count('SELECT COUNT(*) AS n FROM audit_chain WHERE org_id = ?'),
    };
  }

  // ------------------------------------------------------------ proofs (no credential)

  verify(proofId: string) {
    const check = this.ctx.chains.check(proofId);
    return {
      proof_id: proofId,
      authentic: check.authentic,
      unaltered: check.unaltered,
      signer: check.signer,
      found: check.found,
      chain: check.chain,
      chain_index: check.chain_index,
      kind: check.kind,
      signed_at: check.signed_at,
      checks: check.checks,
    };
  }

  /** The stored signed record for offline checking; unknown ids are 404. */
  proof(proofId: string) {
    const receipt = this.ctx.chains.receipt(proofId);
    if (!receipt) throw new ServiceError('not_found', `no proof ${proofId}`);
    return receipt;
  }

  publishedKeys() {
    return { keys: this.ctx.signer.published() };
  }
}
