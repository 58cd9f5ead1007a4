// Every refusal leaves a signed record, walked from the registry: each operation either names the
// ways it refuses an authenticated caller, each shown to append one verifiable receipt (or, for a
// read of table rows, one audit row), or says in words why it has none. An operation added to the
// registry without an entry here fails the first test.
//
// Outside this table: bad input (400 before anything is looked up) and bearers that prove nothing
// (401) leave no record by design (see the last tests and docs/PROOFS.md), except that a read of
// table rows by a known agent leaves its audit row whatever refused it, bad input included (its
// entries here, and the describe that walks the operations keeping their own record over HTTP). The
// caller check that runs before an operation (credential kind, organization, scope, and the agent's
// own handle) is receipted by the invoker itself (`operation.refused`): the last describe walks it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finderOf } from '../../src/backend/scan.ts';
import { OPERATIONS, ops } from '../../src/backend/operations/index.ts';
import type { Operation } from '../../src/backend/operation.ts';
import { ROUTES } from '../../src/backend/routes.ts';
import { ServiceError, type ServiceErrorCode } from '../../src/backend/errors.ts';
import type { GrantInput } from '../../src/backend/governance.ts';
import {
  fabricAddress,
  generateFabricKeyPair,
  openEnrollChallenge,
  type FabricKeyPair,
} from '../../src/sdk/fabric.ts';
import { ENROLL_CHALLENGE_TTL_SECONDS } from '../../src/backend/fabric.ts';
import { enrollKey, harness, type Harness } from '../helpers.ts';
import { SAMPLES } from '../operation-samples.ts';
import { USE_REQUEST_LIMIT } from '../../src/backend/sources.ts';
import { MAX_ORGANIZATION_RULES } from '../../src/backend/rules.ts';
import { LINK_LIVE_PER_ORG } from '../../src/backend/links.ts';
import { sealForLink } from '../../src/proofs/link-seal.ts';

type Chain = 'service' | 'audit';

interface Scenario {
  /** What is refused, in words. */
  name: string;
  /** Where the record goes: the service chain, or the audit chain for reads of table rows. */
  chain: Chain;
  kind: string;
  /** The error the refusal answers; absent when the operation answers its deny instead of throwing. */
  code?: ServiceErrorCode;
  /**
   * Sets up what the refusal needs; answers the refused call (not yet made, through
   * `service.invoke`) and the fields its record must hold: the caller, what was asked, the reason.
   */
  arrange(h: Harness): Promise<{ call: () => Promise<unknown>; record: Record<string, unknown> }>;
}

type Entry = { refusals: Scenario[] } | { none: string };

/** A scan of a new folder holding `files`, kept in the harness's store. */
async function scanned(h: Harness, files: Record<string, string>) {
  const folder = mkdtempSync(join(tmpdir(), 'svc-refusal-scan-'));
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return await finderOf(h.service.ctx).scan(folder, { scannedBy: 'test' });
}
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A credential never appears in a record, nor does a source's secret. */
const SOURCE_SECRET = 'source-secret-never-receipted';
const bearer = (secret: string) => `Bearer ${secret}`;

async function newOrg(h: Harness, name = 'Acme') {
  const org = await h.service.invoke(ops.createOrg, undefined, { name });
  return { ...org, bearer: bearer(org.api_key) };
}

type Org = Awaited<ReturnType<typeof newOrg>>;

async function newAgent(h: Harness, org: Org, grant: Partial<GrantInput> = {}) {
  const created = await h.service.invoke(ops.createGrant, org.bearer, {
    agent: 'Support Bot',
    columns: ['id', 'region'],
    ...grant,
  });
  return { ...created, bearer: bearer(created.grant_token) };
}

type Agent = Awaited<ReturnType<typeof newAgent>>;

/**
 * An agent of a new organization (its grant `grant`) calls `operation` with `input`, which it
 * refuses: the refusal's record names the agent and `record`.
 */
function agentAttempt<I>(
  operation: Operation<I>,
  input: I,
  record: Record<string, unknown>,
  grant: Partial<GrantInput> = {},
) {
  return async (h: Harness) => {
    const agent = await newAgent(h, await newOrg(h), grant);
    return {
      call: () => h.service.invoke(operation, agent.bearer, input),
      record: { ...agentNamed(agent), ...record },
    };
  };
}

async function enroll(h: Harness, agent: Agent, keys?: FabricKeyPair) {
  return (await enrollKey(h.service, agent.bearer, agent.handle, keys ?? (await generateFabricKeyPair())))
    .kid;
}

/** The proof an agent gets by opening a challenge for `keys` with their private key. */
async function proofFor(h: Harness, agent: Agent, keys: FabricKeyPair) {
  const challenge = await h.service.invoke(ops.requestEnrollChallenge, agent.bearer, {
    handle: agent.handle,
    ecdh_pubkey_hex: keys.publicKeyHex,
  });
  return openEnrollChallenge({ challenge_b64: challenge.challenge_b64, privateKeyHex: keys.privateKeyHex });
}

const agentNamed = (agent: Agent) => ({ agent_id: agent.agent_id, handle: agent.handle, jti: agent.jti });
const keyNamed = (org: Org) => ({ org_id: org.org_id, key_id: org.key_id });

const envelope = { ciphertext_b64: 'AAAA', wrapped_key_b64: 'AAAA', payload_iv_b64: 'AAAA' };

/** Two enrolled agents of one organization, the sender's organization granting the recipient. */
async function exchange(h: Harness) {
  const org = await newOrg(h);
  const sender = await newAgent(h, org, { agent: 'Sender' });
  const recipient = await newAgent(h, org, { agent: 'Recipient' });
  await enroll(h, sender);
  const kid = await enroll(h, recipient);
  await h.service.invoke(ops.createFabricGrant, org.bearer, { subject_kid: kid });
  return { org, sender, recipient, kid };
}

async function capsule(h: Harness, org: Org, revoked = false) {
  const created = await h.service.invoke(ops.createCapsule, org.bearer, { name: 'Deal room' });
  if (revoked) await h.service.invoke(ops.revokeCapsule, org.bearer, { id: created.id });
  return created.id;
}

async function source(h: Harness, org: Org) {
  await h.service.invoke(ops.registerSource, org.bearer, {
    name: 'crm',
    base_url: 'http://127.0.0.1:9/api/',
    scheme: 'bearer',
    credential: SOURCE_SECRET,
    allow_private_network: true,
  });
}

const machine = { machine_id: 'a'.repeat(32), hostname: 'laptop', platform: 'linux', arch: 'x64' };
const CONNECT_CODE_LIFETIME_MS = 10 * 60 * 1000;
/** Wrong codes tried while a request is pending after which its code is withdrawn. */
const CONNECT_MAX_MISSES = 1000;
/** A pending request whose code has been guessed at as often as the service allows. */
async function guessedAtTooOften(h: Harness) {
  const started = await h.service.invoke(ops.startConnect, undefined, machine);
  await h.service.ctx.store.write(() =>
    h.service.ctx.store.run('UPDATE connect_requests SET misses = ?', CONNECT_MAX_MISSES),
  );
  return started;
}

/** A link of a new organization, with the nonce its page hands out. */
async function newLink(h: Harness, extra: Record<string, unknown> = {}) {
  const org = await newOrg(h);
  const { fragment: _fragment, ...parts } = await sealForLink(new TextEncoder().encode('shared'));
  const link = await h.service.invoke(ops.createLink, org.bearer, {
    ...parts,
    size_bytes: 6,
    content_type: 'text/plain',
    ...extra,
  });
  const view = await h.service.invoke(ops.viewLink, undefined, { link_id: link.link_id });
  return { org, link, nonce: view.open_nonce! };
}

function linkOpenRefusal(
  name: string,
  reason: 'stale_page' | 'code_required' | 'wrong_code',
  extra: Record<string, unknown>,
  body: (nonce: string) => { nonce: string; code?: string },
): Scenario {
  return {
    name,
    chain: 'service',
    kind: 'link.open',
    code: reason,
    arrange: async (h) => {
      const { link, nonce } = await newLink(h, extra);
      return {
        call: () => h.service.invoke(ops.openLink, undefined, { link_id: link.link_id, ...body(nonce) }),
        record: { link_id: link.link_id, outcome: 'deny', reason },
      };
    },
  };
}

/** An owner's call naming a link its organization does not have. */
function unknownLink(operation: 'linkStatus' | 'burnLink' | 'revokeLink', kind: string): Scenario {
  return {
    name: 'a link the organization does not have',
    chain: 'service',
    kind,
    code: 'not_found',
    arrange: async (h) => {
      const org = await newOrg(h);
      const linkId = 'B'.repeat(22);
      return {
        call: () => h.service.invoke(ops[operation] as typeof ops.burnLink, org.bearer, { link_id: linkId }),
        record: { ...keyNamed(org), link_id: linkId, reason: 'unknown_link' },
      };
    },
  };
}

/**
 * An exposure of a new folder holding a readable file, a file its rules deny and a binary file,
 * with the nonce its listing hands out.
 */
async function newExposure(h: Harness, extra: Record<string, unknown> = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'svc-refusal-expose-'));
  folders.push(folder);
  mkdirSync(join(folder, '.svc'));
  writeFileSync(
    join(folder, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'deny', paths: ['secret.txt'] }]),
  );
  writeFileSync(join(folder, 'notes.txt'), 'write to ops@example.com\n');
  writeFileSync(join(folder, 'secret.txt'), 'the vault combination\n');
  writeFileSync(join(folder, 'logo.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  const exposure = await h.service.invoke(ops.startExposure, undefined, { folder, ...extra });
  const listed = await h.service.invoke(ops.listExposedFiles, undefined, {
    exposure_id: exposure.exposure_id,
  });
  return { exposure, nonce: listed.nonce };
}

function exposureCopyRefusal(
  name: string,
  reason: 'stale_page' | 'code_required' | 'wrong_code' | 'unknown_file' | 'not_text',
  code: ServiceErrorCode,
  extra: Record<string, unknown>,
  body: (nonce: string) => { nonce: string; code?: string; file: string },
): Scenario {
  return {
    name,
    chain: 'service',
    kind: 'exposure.copy',
    code,
    arrange: async (h) => {
      const { exposure, nonce } = await newExposure(h, extra);
      const asked = body(nonce);
      return {
        call: () =>
          h.service.invoke(ops.copyExposedFile, undefined, { exposure_id: exposure.exposure_id, ...asked }),
        record: { exposure_id: exposure.exposure_id, outcome: 'deny', reason, file: asked.file },
      };
    },
  };
}

const NO_CALLER = 'takes no credential: there is no caller to name, and anyone could grow the chain';
const LOCAL =
  'runs in process only, for the owner of the data dir, who holds the store itself; it takes no credential';

const TABLE: Record<string, Entry> = {
  createGrant: {
    refusals: [
      {
        name: 'a table the organization has not registered',
        chain: 'service',
        kind: 'agent.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.createGrant, org.bearer, { agent: 'x', columns: ['id'], table: 'ghosts' }),
            record: { ...keyNamed(org), table: 'ghosts', columns: ['id'], reason: 'unknown_table' },
          };
        },
      },
      {
        name: 'a column the table does not register',
        chain: 'service',
        kind: 'agent.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.createGrant, org.bearer, { agent: 'x', columns: ['id', 'ssn'] }),
            record: { ...keyNamed(org), reason: 'unknown_columns', denied: ['ssn'] },
          };
        },
      },
      {
        name: 'a column outside the granted classifications',
        chain: 'service',
        kind: 'agent.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.createGrant, org.bearer, {
                agent: 'x',
                columns: ['id', 'email'],
                classifications: ['public'],
              }),
            record: { ...keyNamed(org), reason: 'columns_outside_classifications', denied: ['email'] },
          };
        },
      },
      {
        name: 'a filter on a sealed column',
        chain: 'service',
        kind: 'agent.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.createGrant, org.bearer, {
                agent: 'x',
                columns: ['id'],
                where: { email: 'x' },
              }),
            record: { ...keyNamed(org), reason: 'invalid_where', denied: ['email'] },
          };
        },
      },
      {
        name: 'a capability on a source the organization has not registered',
        chain: 'service',
        kind: 'agent.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.createGrant, org.bearer, {
                agent: 'x',
                columns: ['id'],
                capabilities: [{ source: 'crm' }],
              }),
            record: { ...keyNamed(org), reason: 'unknown_sources', sources: ['crm'], denied: ['crm'] },
          };
        },
      },
    ],
  },
  listAgents: { none: "it lists the caller's own organization's agents; nothing it looks up can refuse" },
  revokeAgent: {
    refusals: [
      {
        name: 'an agent or grant that does not exist',
        chain: 'service',
        kind: 'agent.revoke.deny',
        code: 'unknown_agent',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.revokeAgent, org.bearer, { target: 'nobody' }),
            record: { ...keyNamed(org), target: 'nobody', reason: 'unknown_agent' },
          };
        },
      },
      {
        name: "another organization's handle, answered exactly as an unknown one (no enumeration)",
        chain: 'service',
        kind: 'agent.revoke.deny',
        code: 'unknown_agent',
        arrange: async (h) => {
          const org = await newOrg(h);
          const theirs = await newAgent(h, await newOrg(h, 'Other'));
          return {
            call: () => h.service.invoke(ops.revokeAgent, org.bearer, { target: theirs.handle }),
            record: { ...keyNamed(org), target: theirs.handle, reason: 'unknown_agent' },
          };
        },
      },
      {
        name: "another organization's jti, answered exactly as an unknown one (no enumeration)",
        chain: 'service',
        kind: 'agent.revoke.deny',
        code: 'unknown_agent',
        arrange: async (h) => {
          const org = await newOrg(h);
          const theirs = await newAgent(h, await newOrg(h, 'Other'));
          return {
            call: () => h.service.invoke(ops.revokeAgent, org.bearer, { target: theirs.jti }),
            record: { ...keyNamed(org), target: theirs.jti, reason: 'unknown_agent' },
          };
        },
      },
    ],
  },
  computeDecision: {
    // A plan's `deny` is an answer, not a refusal: a plan releases nothing whatever it decides,
    // and `?receipt=true` signs it. A plan that cannot be made is refused and always receipted.
    refusals: [
      {
        name: 'a plan on a table the organization has not registered',
        chain: 'service',
        kind: 'access.compute.deny',
        code: 'unknown_table',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          return {
            call: () =>
              h.service.invoke(ops.computeDecision, agent.bearer, { table: 'ghosts', columns: ['id'] }),
            record: { org_id: org.org_id, ...agentNamed(agent), table: 'ghosts', reason: 'unknown_table' },
          };
        },
      },
    ],
  },
  readRows: {
    refusals: [
      {
        name: 'a read of a table the organization has not registered',
        chain: 'audit',
        kind: 'audit.read',
        code: 'unknown_table',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          return {
            call: () => h.service.invoke(ops.readRows, agent.bearer, { table: 'ghosts', columns: ['id'] }),
            record: { org_id: org.org_id, ...agentNamed(agent), outcome: 'deny', reason: 'unknown_table' },
          };
        },
      },
      {
        name: 'a read of a column outside the grant',
        chain: 'audit',
        kind: 'audit.read',
        code: 'scope_violation',
        arrange: agentAttempt(
          ops.readRows,
          { table: 'agent_demo_records', columns: ['id', 'email'] },
          { reason: 'scope_violation', denied_columns: ['email'] },
        ),
      },
      {
        name: 'a filter on a sealed column',
        chain: 'audit',
        kind: 'audit.read',
        code: 'invalid_request',
        arrange: agentAttempt(
          ops.readRows,
          { table: 'agent_demo_records', columns: ['id'], where: { email: 'x' } },
          { reason: 'invalid_where' },
          { columns: ['id', 'email'] },
        ),
      },
      // Refused before the read runs, the agent being known: audited all the same, once.
      {
        name: 'a limit over 200 (bad input)',
        chain: 'audit',
        kind: 'audit.read',
        code: 'invalid_request',
        arrange: agentAttempt(
          ops.readRows,
          { table: 'agent_demo_records', columns: ['id'], limit: 500 },
          {
            outcome: 'deny',
            reason: 'invalid_request',
            table: 'agent_demo_records',
            columns: ['id'],
            limit: null,
          },
        ),
      },
      {
        name: 'a column name that is not one (bad input)',
        chain: 'audit',
        kind: 'audit.read',
        code: 'invalid_request',
        arrange: agentAttempt(
          ops.readRows,
          { table: 'agent_demo_records', columns: ['email; DROP'] },
          { reason: 'invalid_request', columns: [] },
        ),
      },
      {
        name: 'a token used under another agent’s handle',
        chain: 'audit',
        kind: 'audit.read',
        code: 'forbidden',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          const other = await newAgent(h, org, { agent: 'Other Bot' });
          return {
            call: () =>
              h.service.invoke(ops.readRows, agent.bearer, {
                handle: other.handle,
                table: 'agent_demo_records',
                columns: ['id'],
              }),
            record: {
              ...agentNamed(agent),
              reason: 'forbidden',
              asked_handle: other.handle,
              columns: ['id'],
            },
          };
        },
      },
    ],
  },
  retrieve: {
    refusals: [
      {
        name: 'a retrieval whose plan allows no column',
        chain: 'audit',
        kind: 'audit.read',
        arrange: agentAttempt(
          ops.retrieve,
          { columns: ['email'] },
          {
            outcome: 'deny',
            reason: 'plan_denied',
            plan_reasons: ['not_granted:email'],
            denied_columns: ['email'],
          },
        ),
      },
      {
        name: 'a retrieval from a table the organization has not registered',
        chain: 'audit',
        kind: 'audit.read',
        code: 'unknown_table',
        arrange: agentAttempt(
          ops.retrieve,
          { table: 'ghosts' },
          { table: 'ghosts', reason: 'unknown_table' },
        ),
      },
      {
        name: 'a retrieval with a limit over 200 (bad input)',
        chain: 'audit',
        kind: 'audit.read',
        code: 'invalid_request',
        arrange: agentAttempt(
          ops.retrieve,
          { columns: ['id'], limit: 500 },
          { reason: 'invalid_request', columns: ['id'] },
        ),
      },
    ],
  },
  getPolicyBoard: { none: "it shows the caller's own organization's agents and grants" },
  listProofs: { none: "it lists the caller's own organization's receipts" },
  whoami: { none: 'it describes the credential it was called with, and nothing else' },
  listTables: { none: "it lists the caller's own organization's tables" },
  registerTable: {
    refusals: [
      {
        name: 'a table name already registered',
        chain: 'service',
        kind: 'table.register.deny',
        code: 'table_exists',
        arrange: async (h) => {
          const org = await newOrg(h);
          const columns = [{ name: 'id', classification: 'public', storage: 'plaintext' as const }];
          return {
            call: () =>
              h.service.invoke(ops.registerTable, org.bearer, { name: 'agent_demo_records', columns }),
            record: { org_id: org.org_id, table: 'agent_demo_records', columns, reason: 'table_exists' },
          };
        },
      },
    ],
  },
  loadRows: {
    refusals: [
      {
        name: 'rows for a table the organization has not registered',
        chain: 'service',
        kind: 'table.load.deny',
        code: 'unknown_table',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.loadRows, org.bearer, { name: 'ghosts', rows: [{ id: 1 }] }),
            record: { org_id: org.org_id, table: 'ghosts', row_count: 1, reason: 'unknown_table' },
          };
        },
      },
      {
        name: 'a row with a column the table does not register',
        chain: 'service',
        kind: 'table.load.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.loadRows, org.bearer, {
                name: 'agent_demo_records',
                rows: [{ id: 1, ssn: 'x' }],
              }),
            record: { org_id: org.org_id, column: 'ssn', reason: 'unknown_column' },
          };
        },
      },
    ],
  },
  requestEnrollChallenge: {
    none: 'it seals a challenge to the key asked for whatever the store holds, and stores nothing; only bad input (a key nothing can be sealed to) is refused',
  },
  enrollFabric: {
    refusals: [
      {
        name: 'an agent already enrolled',
        chain: 'service',
        kind: 'fabric.enroll.deny',
        code: 'already_enrolled',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          await enroll(h, agent);
          const again = await generateFabricKeyPair();
          const proof = await proofFor(h, agent, again);
          return {
            call: () =>
              h.service.invoke(ops.enrollFabric, agent.bearer, {
                handle: agent.handle,
                ecdh_pubkey_hex: again.publicKeyHex,
                proof,
              }),
            record: { ...agentNamed(agent), reason: 'already_enrolled' },
          };
        },
      },
      {
        name: 'an address another agent holds (both agents hold its private key)',
        chain: 'service',
        kind: 'fabric.enroll.deny',
        code: 'kid_collision',
        arrange: async (h) => {
          const org = await newOrg(h);
          const first = await newAgent(h, org, { agent: 'First' });
          const second = await newAgent(h, org, { agent: 'Second' });
          const keys = await generateFabricKeyPair();
          const kid = await enroll(h, first, keys);
          const proof = await proofFor(h, second, keys);
          return {
            call: () =>
              h.service.invoke(ops.enrollFabric, second.bearer, {
                handle: second.handle,
                ecdh_pubkey_hex: keys.publicKeyHex,
                proof,
              }),
            record: { ...agentNamed(second), kid, reason: 'kid_collision' },
          };
        },
      },
      {
        name: 'a key sent without proof of holding its private key',
        chain: 'service',
        kind: 'fabric.enroll.deny',
        code: 'key_not_proven',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          const keys = await generateFabricKeyPair();
          return {
            call: () =>
              h.service.invoke(ops.enrollFabric, agent.bearer, {
                handle: agent.handle,
                ecdh_pubkey_hex: keys.publicKeyHex,
              }),
            record: { ...agentNamed(agent), kid: fabricAddress(keys.publicKeyHex), reason: 'proof_missing' },
          };
        },
      },
      {
        name: 'a proof opened by another agent, replayed',
        chain: 'service',
        kind: 'fabric.enroll.deny',
        code: 'key_not_proven',
        arrange: async (h) => {
          const org = await newOrg(h);
          const holder = await newAgent(h, org, { agent: 'Holder' });
          const other = await newAgent(h, org, { agent: 'Other' });
          const keys = await generateFabricKeyPair();
          const proof = await proofFor(h, holder, keys);
          return {
            call: () =>
              h.service.invoke(ops.enrollFabric, other.bearer, {
                handle: other.handle,
                ecdh_pubkey_hex: keys.publicKeyHex,
                proof,
              }),
            record: { ...agentNamed(other), reason: 'proof_invalid' },
          };
        },
      },
      {
        name: 'a proof answered after its challenge expired',
        chain: 'service',
        kind: 'fabric.enroll.deny',
        code: 'key_not_proven',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          const keys = await generateFabricKeyPair();
          const proof = await proofFor(h, agent, keys);
          h.clock.advance(ENROLL_CHALLENGE_TTL_SECONDS * 1000);
          return {
            call: () =>
              h.service.invoke(ops.enrollFabric, agent.bearer, {
                handle: agent.handle,
                ecdh_pubkey_hex: keys.publicKeyHex,
                proof,
              }),
            record: { ...agentNamed(agent), reason: 'proof_expired' },
          };
        },
      },
    ],
  },
  listFabricGrants: { none: "it lists grants the caller's own organization issued or its agents receive" },
  createFabricGrant: {
    refusals: [
      {
        name: 'a second active grant for one address',
        chain: 'service',
        kind: 'fabric.grant.deny',
        code: 'grant_exists',
        arrange: async (h) => {
          const org = await newOrg(h);
          await h.service.invoke(ops.createFabricGrant, org.bearer, { subject_kid: 'cccccccccccccccc' });
          return {
            call: () =>
              h.service.invoke(ops.createFabricGrant, org.bearer, { subject_kid: 'cccccccccccccccc' }),
            record: { ...keyNamed(org), subject_kid: 'cccccccccccccccc', reason: 'grant_exists' },
          };
        },
      },
      {
        name: "a sender that is not one of the organization's enrolled agents",
        chain: 'service',
        kind: 'fabric.grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.createFabricGrant, org.bearer, {
                subject_kid: 'cccccccccccccccc',
                allowed_sender_kids: ['dddddddddddddddd'],
              }),
            record: {
              ...keyNamed(org),
              allowed_sender_kids: ['dddddddddddddddd'],
              reason: 'unknown_sender_kids',
            },
          };
        },
      },
    ],
  },
  revokeFabricGrant: {
    refusals: [
      {
        name: 'a grant that does not exist',
        chain: 'service',
        kind: 'fabric.revoke.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.revokeFabricGrant, org.bearer, { grant_id: 'fg_nope' }),
            record: { ...keyNamed(org), grant_id: 'fg_nope', reason: 'not_found' },
          };
        },
      },
      {
        name: "another organization's grant",
        chain: 'service',
        kind: 'fabric.revoke.deny',
        code: 'forbidden',
        arrange: async (h) => {
          const org = await newOrg(h);
          const other = await newOrg(h, 'Other');
          const theirs = await h.service.invoke(ops.createFabricGrant, other.bearer, {
            subject_kid: 'cccccccccccccccc',
          });
          return {
            call: () => h.service.invoke(ops.revokeFabricGrant, org.bearer, { grant_id: theirs.grant_id }),
            record: { ...keyNamed(org), grant_id: theirs.grant_id, reason: 'other_organization' },
          };
        },
      },
    ],
  },
  sendEnvelope: {
    refusals: [
      {
        name: 'a send before enrolling',
        chain: 'service',
        kind: 'fabric.send.deny',
        code: 'not_enrolled',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          return {
            call: () =>
              h.service.invoke(ops.sendEnvelope, agent.bearer, {
                handle: agent.handle,
                recipient_kid: 'cccccccccccccccc',
                ...envelope,
              }),
            record: { ...agentNamed(agent), recipient_kid: 'cccccccccccccccc', reason: 'not_enrolled' },
          };
        },
      },
      {
        name: 'an address no agent enrolled',
        chain: 'service',
        kind: 'fabric.send.deny',
        code: 'not_found',
        arrange: async (h) => {
          const { sender } = await exchange(h);
          return {
            call: () =>
              h.service.invoke(ops.sendEnvelope, sender.bearer, {
                handle: sender.handle,
                recipient_kid: 'cccccccccccccccc',
                ...envelope,
              }),
            record: {
              ...agentNamed(sender),
              recipient_kid: 'cccccccccccccccc',
              size_bytes: 3,
              reason: 'unknown_recipient',
            },
          };
        },
      },
      {
        name: 'an address holding as many live envelopes as its quota allows',
        chain: 'service',
        kind: 'fabric.send.deny',
        code: 'quota_exceeded',
        arrange: async (h) => {
          const { sender, kid } = await exchange(h);
          // This test's own service: one live envelope per address fills it.
          h.service.ctx.fabricQuotas.recipientEnvelopes = 1;
          await h.service.invoke(ops.sendEnvelope, sender.bearer, {
            handle: sender.handle,
            recipient_kid: kid,
            ...envelope,
          });
          return {
            call: () =>
              h.service.invoke(ops.sendEnvelope, sender.bearer, {
                handle: sender.handle,
                recipient_kid: kid,
                ...envelope,
              }),
            record: {
              ...agentNamed(sender),
              recipient_kid: kid,
              quota: 'recipient_envelopes',
              limit: 1,
              reason: 'quota_exceeded',
            },
          };
        },
      },
    ],
  },
  listInbox: {
    refusals: [
      {
        name: 'an inbox before enrolling',
        chain: 'service',
        kind: 'fabric.inbox.deny',
        code: 'not_enrolled',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          return {
            call: () => h.service.invoke(ops.listInbox, agent.bearer, { handle: agent.handle }),
            record: { ...agentNamed(agent), reason: 'not_enrolled' },
          };
        },
      },
    ],
  },
  listFabricSenders: {
    refusals: [
      {
        name: 'the permitted senders before enrolling',
        chain: 'service',
        kind: 'fabric.senders.deny',
        code: 'not_enrolled',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          return {
            call: () => h.service.invoke(ops.listFabricSenders, agent.bearer, { handle: agent.handle }),
            record: { ...agentNamed(agent), reason: 'not_enrolled' },
          };
        },
      },
    ],
  },
  getFabricKey: {
    refusals: [
      {
        name: 'the key of an address nobody enrolled',
        chain: 'service',
        kind: 'fabric.key.deny',
        code: 'not_found',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          return {
            call: () =>
              h.service.invoke(ops.getFabricKey, agent.bearer, {
                handle: agent.handle,
                kid: 'cccccccccccccccc',
              }),
            record: { ...agentNamed(agent), kid: 'cccccccccccccccc', reason: 'unknown_address' },
          };
        },
      },
    ],
  },
  fetchEnvelope: {
    refusals: [
      {
        name: 'the gate: an envelope addressed to another agent',
        chain: 'service',
        kind: 'fabric.fetch',
        code: 'fabric_denied',
        arrange: async (h) => {
          const { org, sender, kid } = await exchange(h);
          const other = await newAgent(h, org, { agent: 'Bystander' });
          await enroll(h, other);
          const sent = await h.service.invoke(ops.sendEnvelope, sender.bearer, {
            handle: sender.handle,
            recipient_kid: kid,
            ...envelope,
          });
          return {
            call: () =>
              h.service.invoke(ops.fetchEnvelope, other.bearer, { handle: other.handle, blob_id: sent.id }),
            record: {
              agent_id: other.agent_id,
              envelope_id: sent.id,
              outcome: 'deny',
              reasons: ['not_addressed_to_agent'],
            },
          };
        },
      },
      {
        name: 'an envelope that does not exist',
        chain: 'service',
        kind: 'fabric.fetch',
        code: 'not_found',
        arrange: async (h) => {
          const { recipient } = await exchange(h);
          const blob = '00000000-0000-4000-8000-000000000000';
          return {
            call: () =>
              h.service.invoke(ops.fetchEnvelope, recipient.bearer, {
                handle: recipient.handle,
                blob_id: blob,
              }),
            record: {
              agent_id: recipient.agent_id,
              envelope_id: blob,
              outcome: 'deny',
              reasons: ['envelope_not_found'],
            },
          };
        },
      },
      {
        name: 'an expired envelope',
        chain: 'service',
        kind: 'fabric.fetch',
        code: 'gone',
        arrange: async (h) => {
          const { sender, recipient, kid } = await exchange(h);
          const sent = await h.service.invoke(ops.sendEnvelope, sender.bearer, {
            handle: sender.handle,
            recipient_kid: kid,
            ttl_hours: 1,
            ...envelope,
          });
          h.clock.advance(2 * 3_600_000);
          return {
            call: () =>
              h.service.invoke(ops.fetchEnvelope, recipient.bearer, {
                handle: recipient.handle,
                blob_id: sent.id,
              }),
            record: {
              agent_id: recipient.agent_id,
              envelope_id: sent.id,
              recipient_kid: kid,
              outcome: 'deny',
              reasons: ['envelope_expired'],
            },
          };
        },
      },
      {
        name: 'an envelope fetched as often as it may be',
        chain: 'service',
        kind: 'fabric.fetch',
        code: 'gone',
        arrange: async (h) => {
          const { sender, recipient, kid } = await exchange(h);
          const sent = await h.service.invoke(ops.sendEnvelope, sender.bearer, {
            handle: sender.handle,
            recipient_kid: kid,
            ...envelope,
          });
          const fetch = () =>
            h.service.invoke(ops.fetchEnvelope, recipient.bearer, {
              handle: recipient.handle,
              blob_id: sent.id,
            });
          await fetch();
          return {
            call: fetch,
            record: {
              agent_id: recipient.agent_id,
              envelope_id: sent.id,
              reasons: ['envelope_fully_fetched'],
            },
          };
        },
      },
    ],
  },
  computeDocuments: {
    none: 'every documents compute is receipted (documents.compute), its deny included: nothing is refused with an error',
  },
  createCapsule: { none: "it creates a capsule in the caller's own organization" },
  listCapsules: { none: "it lists the caller's own organization's capsules" },
  getCapsule: {
    refusals: [
      {
        name: 'a capsule that does not exist',
        chain: 'service',
        kind: 'capsule.read.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.getCapsule, org.bearer, { id: 'cap_nope' }),
            record: { ...keyNamed(org), capsule_id: 'cap_nope', reason: 'not_found' },
          };
        },
      },
      {
        name: "another organization's capsule, answered exactly as an unknown one",
        chain: 'service',
        kind: 'capsule.read.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          const theirs = await capsule(h, await newOrg(h, 'Other'));
          return {
            call: () => h.service.invoke(ops.getCapsule, org.bearer, { id: theirs }),
            record: { ...keyNamed(org), capsule_id: theirs, reason: 'not_found' },
          };
        },
      },
    ],
  },
  addCapsuleDocument: {
    refusals: [
      {
        name: 'a document for a revoked capsule',
        chain: 'service',
        kind: 'capsule.document.deny',
        code: 'capsule_revoked',
        arrange: async (h) => {
          const org = await newOrg(h);
          const id = await capsule(h, org, true);
          return {
            call: () =>
              h.service.invoke(ops.addCapsuleDocument, org.bearer, {
                id,
                title: 'Terms',
                text: 'secret terms',
              }),
            record: { ...keyNamed(org), capsule_id: id, size_bytes: 12, reason: 'capsule_revoked' },
          };
        },
      },
      {
        name: "a document for another organization's capsule, answered exactly as an unknown one",
        chain: 'service',
        kind: 'capsule.document.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          const theirs = await capsule(h, await newOrg(h, 'Other'));
          return {
            call: () =>
              h.service.invoke(ops.addCapsuleDocument, org.bearer, { id: theirs, title: 't', text: 'x' }),
            record: { ...keyNamed(org), capsule_id: theirs, reason: 'not_found' },
          };
        },
      },
    ],
  },
  addCapsuleMember: {
    refusals: [
      {
        name: 'a person already a member',
        chain: 'service',
        kind: 'capsule.member.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          const id = await capsule(h, org);
          const member = { id, email: 'ada@example.test', role: 'viewer' as const };
          await h.service.invoke(ops.addCapsuleMember, org.bearer, member);
          return {
            call: () => h.service.invoke(ops.addCapsuleMember, org.bearer, member),
            record: { ...keyNamed(org), capsule_id: id, role: 'viewer', reason: 'already_member' },
          };
        },
      },
      {
        name: 'a member for a capsule that does not exist',
        chain: 'service',
        kind: 'capsule.member.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.addCapsuleMember, org.bearer, {
                id: 'cap_nope',
                email: 'ada@example.test',
                role: 'viewer',
              }),
            record: { ...keyNamed(org), capsule_id: 'cap_nope', reason: 'not_found' },
          };
        },
      },
    ],
  },
  addCapsuleAiGrant: {
    refusals: [
      {
        name: "an agent the organization does not have (another organization's included)",
        chain: 'service',
        kind: 'capsule.ai_grant.deny',
        code: 'unknown_agent',
        arrange: async (h) => {
          const org = await newOrg(h);
          const id = await capsule(h, org);
          const theirs = await newAgent(h, await newOrg(h, 'Other'), { agent: 'Foreign Bot' });
          return {
            call: () => h.service.invoke(ops.addCapsuleAiGrant, org.bearer, { id, agent: theirs.handle }),
            record: { ...keyNamed(org), capsule_id: id, agent: theirs.handle, reason: 'unknown_agent' },
          };
        },
      },
      {
        name: 'a revoked agent',
        chain: 'service',
        kind: 'capsule.ai_grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const id = await capsule(h, org);
          const agent = await newAgent(h, org);
          await h.service.invoke(ops.revokeAgent, org.bearer, { target: agent.handle });
          return {
            call: () => h.service.invoke(ops.addCapsuleAiGrant, org.bearer, { id, agent: agent.handle }),
            record: { ...keyNamed(org), capsule_id: id, agent: agent.handle, reason: 'agent_revoked' },
          };
        },
      },
      {
        name: 'documents that are not in the capsule',
        chain: 'service',
        kind: 'capsule.ai_grant.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const id = await capsule(h, org);
          const agent = await newAgent(h, org);
          return {
            call: () =>
              h.service.invoke(ops.addCapsuleAiGrant, org.bearer, {
                id,
                agent: agent.handle,
                documents: ['doc_nope'],
              }),
            record: {
              ...keyNamed(org),
              capsule_id: id,
              documents: ['doc_nope'],
              reason: 'unknown_documents',
            },
          };
        },
      },
    ],
  },
  revokeCapsule: {
    refusals: [
      {
        name: "another organization's capsule, answered exactly as an unknown one",
        chain: 'service',
        kind: 'capsule.revoke.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          const theirs = await capsule(h, await newOrg(h, 'Other'));
          return {
            call: () => h.service.invoke(ops.revokeCapsule, org.bearer, { id: theirs }),
            record: { ...keyNamed(org), capsule_id: theirs, reason: 'not_found' },
          };
        },
      },
      {
        name: 'a capsule that does not exist',
        chain: 'service',
        kind: 'capsule.revoke.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.revokeCapsule, org.bearer, { id: 'cap_nope' }),
            record: { ...keyNamed(org), capsule_id: 'cap_nope', reason: 'not_found' },
          };
        },
      },
    ],
  },
  setRecoveryKey: { none: "it sets or replaces the caller's own organization's recovery key" },
  storeRecoveryCopy: {
    refusals: [
      {
        name: 'a copy before a recovery key is set',
        chain: 'service',
        kind: 'recovery.copy.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.storeRecoveryCopy, org.bearer, { ciphertext_b64: 'AAAA' }),
            record: { ...keyNamed(org), size_bytes: 3, reason: 'no_recovery_key' },
          };
        },
      },
    ],
  },
  recordRecoveryEvent: { none: "it appends an event to the caller's own organization's recovery log" },
  getRecoveryState: { none: "it reports the caller's own organization's recovery state" },
  getOverview: { none: "it reports the caller's own organization's meter and holdings" },
  getInvoice: { none: "it reports the caller's own organization's meter for a period" },
  registerSource: {
    refusals: [
      {
        name: 'a source name already registered',
        chain: 'service',
        kind: 'source.register.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          return {
            call: () =>
              h.service.invoke(ops.registerSource, org.bearer, {
                name: 'crm',
                base_url: 'http://127.0.0.1:9/other/',
                scheme: 'bearer',
                credential: SOURCE_SECRET,
                allow_private_network: true,
              }),
            record: {
              ...keyNamed(org),
              name: 'crm',
              base_url: 'http://127.0.0.1:9/other/',
              reason: 'source_exists',
            },
          };
        },
      },
      {
        name: 'a base_url at a loopback address, without allow_private_network',
        chain: 'service',
        kind: 'source.register.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.registerSource, org.bearer, {
                name: 'crm',
                base_url: 'http://127.0.0.1:9/',
                scheme: 'bearer',
                credential: SOURCE_SECRET,
              }),
            record: {
              ...keyNamed(org),
              name: 'crm',
              base_url: 'http://127.0.0.1:9/',
              reason: 'private_address',
            },
          };
        },
      },
    ],
  },
  listSources: { none: "it lists the caller's own organization's sources, credentials masked" },
  listRules: { none: "it lists the caller's own organization's rules" },
  addRules: {
    refusals: [
      {
        name: "a rule that would loosen the built-in rule over svc's data dir",
        chain: 'service',
        kind: 'rules.add.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.addRules, org.bearer, {
                rules: [
                  { effect: 'deny', paths: ['.env'] },
                  { effect: 'allow', paths: [`${h.service.dataDir}/`] },
                ],
              }),
            record: { ...keyNamed(org), reason: 'loosens', index: 2, loosens: 'builtin:svc-data', rules: 2 },
          };
        },
      },
      {
        name: 'more rules than an organization keeps',
        chain: 'service',
        kind: 'rules.add.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const many = Array.from({ length: MAX_ORGANIZATION_RULES }, (_, i) => ({
            effect: 'deny' as const,
            paths: [`f${i}.txt`],
          }));
          await h.service.invoke(ops.addRules, org.bearer, { rules: many });
          return {
            call: () =>
              h.service.invoke(ops.addRules, org.bearer, { rules: [{ effect: 'ask', paths: ['x'] }] }),
            record: {
              ...keyNamed(org),
              reason: 'too_many',
              limit: MAX_ORGANIZATION_RULES,
              count: MAX_ORGANIZATION_RULES,
            },
          };
        },
      },
    ],
  },
  submitPatch: {
    refusals: [
      {
        name: 'a file the read gate does not let be written (svc\u2019s own data dir, the built-in rule)',
        chain: 'service',
        kind: 'patch.submit.deny',
        code: 'forbidden',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          return {
            call: () =>
              h.service.invoke(ops.submitPatch, agent.bearer, {
                summary: 'x',
                diff: '--- /dev/null\n+++ b/planted.txt\n@@ -0,0 +1 @@\n+x\n',
                project_root: h.service.dataDir,
              }),
            record: {
              ...agentNamed(agent),
              reason: 'protected',
              project_root: h.service.dataDir,
              paths: [{ path: 'planted.txt', outcome: 'denied', rule_id: 'builtin:svc-data' }],
            },
          };
        },
      },
    ],
  },
  listPatches: { none: "it lists the caller's own organization's patches" },
  approvePatch: {
    refusals: [
      {
        name: "a patch id the organization does not have (another organization's included)",
        chain: 'service',
        kind: 'patch.approve.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.approvePatch, org.bearer, { patch_id: 'patch_000000000000' }),
            record: { ...keyNamed(org), patch_id: 'patch_000000000000', reason: 'unknown_patch' },
          };
        },
      },
      {
        name: 'a patch decided already',
        chain: 'service',
        kind: 'patch.approve.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          const queued = await h.service.invoke(ops.submitPatch, agent.bearer, {
            summary: 'x',
            diff: '--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+x\n',
            project_root: '/nonexistent/svc-refusal-project',
          });
          await h.service.invoke(ops.rejectPatch, org.bearer, { patch_id: queued.patch_id });
          return {
            call: () => h.service.invoke(ops.approvePatch, org.bearer, { patch_id: queued.patch_id }),
            record: { ...keyNamed(org), patch_id: queued.patch_id, reason: 'decided', status: 'rejected' },
          };
        },
      },
      {
        name: 'a patch whose project is not a folder on this computer',
        chain: 'service',
        kind: 'patch.approve.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          const agent = await newAgent(h, org);
          const queued = await h.service.invoke(ops.submitPatch, agent.bearer, {
            summary: 'x',
            diff: '--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+x\n',
            project_root: '/nonexistent/svc-refusal-project',
          });
          return {
            call: () => h.service.invoke(ops.approvePatch, org.bearer, { patch_id: queued.patch_id }),
            record: {
              ...keyNamed(org),
              patch_id: queued.patch_id,
              reason: 'no_project',
              project_root: '/nonexistent/svc-refusal-project',
            },
          };
        },
      },
    ],
  },
  rejectPatch: {
    refusals: [
      {
        name: "a patch id the organization does not have (another organization's included)",
        chain: 'service',
        kind: 'patch.reject.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.rejectPatch, org.bearer, { patch_id: 'patch_000000000000' }),
            record: { ...keyNamed(org), patch_id: 'patch_000000000000', reason: 'unknown_patch' },
          };
        },
      },
    ],
  },
  removeRule: {
    refusals: [
      {
        name: "a rule id the organization does not have (another organization's included)",
        chain: 'service',
        kind: 'rules.remove.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          const other = await newOrg(h, 'Other');
          const theirs = await h.service.invoke(ops.addRules, other.bearer, {
            rules: [{ effect: 'deny', paths: ['*.key'] }],
          });
          const ruleId = theirs.rules[0]!.rule_id;
          return {
            call: () => h.service.invoke(ops.removeRule, org.bearer, { rule_id: ruleId }),
            record: { ...keyNamed(org), rule_id: ruleId, reason: 'unknown_rule' },
          };
        },
      },
    ],
  },
  listScanFeedback: { none: "it lists the caller's own organization's verdicts" },
  promoteScanFeedback: {
    refusals: [
      {
        name: 'a verdict that is not a project\u2019s (unknown, or already the organization\u2019s)',
        chain: 'service',
        kind: 'scan.feedback.promote.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.promoteScanFeedback, org.bearer, { feedback_id: 'fb_0123456789abcdef' }),
            record: { ...keyNamed(org), feedback_id: 'fb_0123456789abcdef', reason: 'unknown_feedback' },
          };
        },
      },
    ],
  },
  applyScanPlan: {
    refusals: [
      {
        name: 'a scan the store does not keep',
        chain: 'service',
        kind: 'scan.plan.apply.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.applyScanPlan, org.bearer, { scan_id: 'scan_0123456789abcdef' }),
            record: { ...keyNamed(org), scan_id: 'scan_0123456789abcdef', reason: 'unknown_scan' },
          };
        },
      },
      {
        name: 'an item the plan does not have',
        chain: 'service',
        kind: 'scan.plan.apply.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const { scan_id } = await scanned(h, { 'notes.md': '# nothing to find\n' });
          return {
            call: () => h.service.invoke(ops.applyScanPlan, org.bearer, { scan_id, items: ['r9'] }),
            record: { ...keyNamed(org), scan_id, reason: 'unknown_item', item: 'r9' },
          };
        },
      },
      {
        name: 'a plan with nothing to apply',
        chain: 'service',
        kind: 'scan.plan.apply.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const { scan_id } = await scanned(h, { 'notes.md': '# nothing to find\n' });
          return {
            call: () => h.service.invoke(ops.applyScanPlan, org.bearer, { scan_id }),
            record: { ...keyNamed(org), scan_id, reason: 'nothing_to_apply' },
          };
        },
      },
      {
        name: 'a seal item, which only the computer holding the file applies',
        chain: 'service',
        kind: 'scan.plan.apply.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          const token = `ghp_${'aB3'.repeat(12)}`;
          const { scan_id } = await scanned(h, { '.env': `GITHUB_TOKEN=${token}\n` });
          return {
            call: () => h.service.invoke(ops.applyScanPlan, org.bearer, { scan_id, items: ['s1'] }),
            record: { ...keyNamed(org), scan_id, reason: 'not_appliable', item: 's1' },
          };
        },
      },
    ],
  },
  callSource: {
    refusals: [
      {
        name: 'a source the organization has not registered',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.callSource, org.bearer, {
                source: 'crm',
                method: 'GET',
                path: 'contacts',
              }),
            record: {
              ...keyNamed(org),
              source: 'crm',
              method: 'GET',
              path: 'contacts',
              reason: 'unknown_source',
            },
          };
        },
      },
      {
        name: "a path that leaves the source's base URL",
        chain: 'service',
        kind: 'api.call.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          return {
            call: () =>
              h.service.invoke(ops.callSource, org.bearer, {
                source: 'crm',
                method: 'GET',
                path: '../admin',
              }),
            record: { ...keyNamed(org), source: 'crm', path: '../admin', reason: 'path_outside_source' },
          };
        },
      },
      {
        name: 'a path with an encoded separator an upstream could decode',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          return {
            call: () =>
              h.service.invoke(ops.callSource, org.bearer, {
                source: 'crm',
                method: 'GET',
                path: 'contacts%2F..%2Fadmin',
              }),
            record: {
              ...keyNamed(org),
              source: 'crm',
              path: 'contacts%2F..%2Fadmin',
              reason: 'encoded_separator',
            },
          };
        },
      },
      {
        name: 'a source stored without allow_private_network that points at a private address',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'forbidden',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          // As a source registered before addresses were checked would be stored.
          await h.service.ctx.store.write(() =>
            h.service.ctx.store.run('UPDATE sources SET allow_private_network = 0'),
          );
          return {
            call: () =>
              h.service.invoke(ops.callSource, org.bearer, {
                source: 'crm',
                method: 'GET',
                path: 'contacts',
              }),
            record: { ...keyNamed(org), source: 'crm', path: '/api/contacts', reason: 'private_address' },
          };
        },
      },
    ],
  },
  useCapability: {
    refusals: [
      {
        name: 'a source outside the grant',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'scope_violation',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          const agent = await newAgent(h, org);
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'crm',
                method: 'GET',
                path: 'contacts?q=x',
              }),
            record: { ...agentNamed(agent), source: 'crm', path: '/api/contacts', reason: 'scope_violation' },
          };
        },
      },
      {
        name: 'a source the organization has not registered',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'scope_violation',
        arrange: async (h) => {
          const agent = await newAgent(h, await newOrg(h));
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'billing',
                method: 'GET',
                path: 'x?token=y',
              }),
            record: { ...agentNamed(agent), source: 'billing', path: 'x', reason: 'scope_violation' },
          };
        },
      },
      {
        name: 'a method the grant does not allow',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'scope_violation',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          const agent = await newAgent(h, org, { capabilities: [{ source: 'crm', methods: ['GET'] }] });
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'crm',
                method: 'DELETE',
                path: 'contacts/7',
              }),
            record: {
              ...agentNamed(agent),
              method: 'DELETE',
              path: '/api/contacts/7',
              reason: 'scope_violation',
            },
          };
        },
      },
      {
        name: "a path that leaves the source's base URL",
        chain: 'service',
        kind: 'api.call.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          const agent = await newAgent(h, org, { capabilities: [{ source: 'crm' }] });
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'crm',
                method: 'GET',
                path: '../admin',
              }),
            record: { ...agentNamed(agent), path: '../admin', reason: 'path_outside_source' },
          };
        },
      },
      {
        name: 'a path with a stray % (malformed percent-encoding)',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          const agent = await newAgent(h, org, {
            capabilities: [{ source: 'crm', path_prefix: 'contacts' }],
          });
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'crm',
                method: 'GET',
                path: 'contacts/%',
              }),
            record: { ...agentNamed(agent), path: 'contacts/%', reason: 'malformed_path' },
          };
        },
      },
      {
        name: 'a call carrying more than 32 KiB of path, query and body',
        chain: 'service',
        kind: 'api.call.deny',
        code: 'invalid_request',
        arrange: async (h) => {
          const org = await newOrg(h);
          await source(h, org);
          const agent = await newAgent(h, org, { capabilities: [{ source: 'crm', methods: ['POST'] }] });
          return {
            call: () =>
              h.service.invoke(ops.useCapability, agent.bearer, {
                source: 'crm',
                method: 'POST',
                path: 'notes',
                body: 'n'.repeat(USE_REQUEST_LIMIT),
              }),
            record: { ...agentNamed(agent), path: '/api/notes', reason: 'request_too_large' },
          };
        },
      },
    ],
  },
  registerNode: { none: "it registers or refreshes a machine of the caller's own organization" },
  acceptTerms: {
    refusals: [
      {
        name: 'terms that are not the ones in force',
        chain: 'service',
        kind: 'terms.accept.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () =>
              h.service.invoke(ops.acceptTerms, org.bearer, { version: '1999-01-01', text: 'old terms' }),
            record: { ...keyNamed(org), terms_version: '1999-01-01', reason: 'not_current' },
          };
        },
      },
    ],
  },
  getTerms: { none: 'it shows the terms in force and whether the caller’s organization accepted them' },
  getTermsAcceptance: { none: "it answers whether the caller's own organization accepted a version" },
  startConnect: { none: NO_CALLER },
  pollConnect: { none: `${NO_CALLER} (the device code is its only proof)` },
  describeConnect: { none: NO_CALLER },
  approveConnect: {
    refusals: [
      {
        name: 'an expired code',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'gone',
        arrange: async (h) => {
          const org = await newOrg(h);
          const started = await h.service.invoke(ops.startConnect, undefined, machine);
          h.clock.advance(CONNECT_CODE_LIFETIME_MS + 1);
          return {
            call: () => h.service.invoke(ops.approveConnect, org.bearer, { user_code: started.user_code }),
            record: { ...keyNamed(org), hostname: 'laptop', reason: 'expired' },
          };
        },
      },
      {
        name: 'a code withdrawn after too many wrong guesses',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'gone',
        arrange: async (h) => {
          const org = await newOrg(h);
          const started = await guessedAtTooOften(h);
          return {
            call: () => h.service.invoke(ops.approveConnect, org.bearer, { user_code: started.user_code }),
            record: { ...keyNamed(org), hostname: 'laptop', reason: 'too_many_guesses' },
          };
        },
      },
      {
        name: 'a code already denied',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'conflict',
        arrange: async (h) => {
          const org = await newOrg(h);
          const started = await h.service.invoke(ops.startConnect, undefined, machine);
          await h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code });
          return {
            call: () => h.service.invoke(ops.approveConnect, org.bearer, { user_code: started.user_code }),
            record: { ...keyNamed(org), reason: 'already_denied' },
          };
        },
      },
      {
        name: 'a code that does not exist',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'not_found',
        arrange: async (h) => {
          const org = await newOrg(h);
          return {
            call: () => h.service.invoke(ops.approveConnect, org.bearer, { user_code: 'BCDF-GHJK' }),
            record: { ...keyNamed(org), request_id: null, reason: 'unknown_code' },
          };
        },
      },
    ],
  },
  denyConnect: {
    // Denying takes no credential: the record names the request, and `key_id` is null.
    refusals: [
      {
        name: 'a person denies linking a computer',
        chain: 'service',
        kind: 'node.connect.deny',
        arrange: async (h) => {
          const started = await h.service.invoke(ops.startConnect, undefined, machine);
          return {
            call: () => h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code }),
            record: { org_id: null, key_id: null, hostname: 'laptop', reason: 'denied' },
          };
        },
      },
      {
        name: 'an expired code, the first time it is refused',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'gone',
        arrange: async (h) => {
          const started = await h.service.invoke(ops.startConnect, undefined, machine);
          h.clock.advance(CONNECT_CODE_LIFETIME_MS + 1);
          return {
            call: () => h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code }),
            record: { org_id: null, key_id: null, reason: 'expired' },
          };
        },
      },
      {
        name: 'a code withdrawn after too many wrong guesses, the first time it is refused',
        chain: 'service',
        kind: 'node.connect.deny',
        code: 'gone',
        arrange: async (h) => {
          const started = await guessedAtTooOften(h);
          return {
            call: () => h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code }),
            record: { org_id: null, key_id: null, reason: 'too_many_guesses' },
          };
        },
      },
    ],
  },
  createLink: {
    refusals: [
      {
        name: "a link past the organization's live links",
        chain: 'service',
        kind: 'link.create.deny',
        code: 'quota_exceeded',
        arrange: async (h) => {
          const org = await newOrg(h);
          // The quota's worth of live links, written straight to the store.
          await h.service.ctx.store.write(async () => {
            for (let i = 0; i < LINK_LIVE_PER_ORG; i++) {
              await h.service.ctx.store.run(
                `INSERT INTO links (link_id, org_id, created_by, burn_after_read, ciphertext, size_bytes, content_type,
                   key_check, view_only, max_opens, created_at, expires_at, receipt_id)
                 VALUES (?, ?, 'k', 0, x'00', 0, 'text/plain', '0000000000000000', 0, 1, ?, ?, 'r')`,
                `quota-${i}`,
                org.org_id,
                h.clock().toISOString(),
                new Date(h.clock().getTime() + 3_600_000).toISOString(),
              );
            }
          });
          const { fragment: _fragment, ...parts } = await sealForLink(new Uint8Array(0));
          return {
            call: () =>
              h.service.invoke(ops.createLink, org.bearer, {
                ...parts,
                size_bytes: 0,
                content_type: 'text/plain',
              }),
            record: { ...keyNamed(org), reason: 'quota_exceeded' },
          };
        },
      },
    ],
  },
  listLinks: { none: "it lists the caller's own organization's links" },
  linkStatus: { refusals: [unknownLink('linkStatus', 'link.status.deny')] },
  burnLink: { refusals: [unknownLink('burnLink', 'link.burn.deny')] },
  revokeLink: { refusals: [unknownLink('revokeLink', 'link.revoke.deny')] },
  viewLink: {
    none: 'takes no credential and counts nothing: it shows what a link holds, and anyone could grow the chain',
  },
  openLink: {
    refusals: [
      linkOpenRefusal('an open without the nonce of a page loaded lately', 'stale_page', {}, () => ({
        nonce: 'no-page',
      })),
      linkOpenRefusal('an open without the access code', 'code_required', { code: 'K7P2-9QXM' }, (nonce) => ({
        nonce,
      })),
      linkOpenRefusal('an open with a wrong access code', 'wrong_code', { code: 'K7P2-9QXM' }, (nonce) => ({
        nonce,
        code: 'guess',
      })),
      {
        name: 'an open of a link that has ended (burned by its sender)',
        chain: 'service',
        kind: 'link.open',
        code: 'gone',
        arrange: async (h) => {
          const { org, link, nonce } = await newLink(h);
          await h.service.invoke(ops.burnLink, org.bearer, { link_id: link.link_id });
          return {
            call: () => h.service.invoke(ops.openLink, undefined, { link_id: link.link_id, nonce }),
            record: { link_id: link.link_id, outcome: 'deny', reason: 'link_burned' },
          };
        },
      },
    ],
  },
  startExposure: { none: LOCAL },
  listExposures: { none: LOCAL },
  endExposure: { none: LOCAL },
  listExposedFiles: {
    none: 'takes no credential and counts nothing: it lists what an exposure offers, and anyone could grow the chain',
  },
  copyExposedFile: {
    refusals: [
      exposureCopyRefusal('a copy without the nonce of a listing', 'stale_page', 'stale_page', {}, () => ({
        nonce: 'no-page',
        file: 'notes.txt',
      })),
      exposureCopyRefusal(
        'a copy without the access code',
        'code_required',
        'code_required',
        { code: 'K7P2-9QXM' },
        (nonce) => ({ nonce, file: 'notes.txt' }),
      ),
      exposureCopyRefusal(
        'a copy with a wrong access code',
        'wrong_code',
        'wrong_code',
        { code: 'K7P2-9QXM' },
        (nonce) => ({ nonce, code: 'guess', file: 'notes.txt' }),
      ),
      exposureCopyRefusal('a copy of a file that is not there', 'unknown_file', 'not_found', {}, (nonce) => ({
        nonce,
        file: 'missing.txt',
      })),
      exposureCopyRefusal(
        'a copy of a file the read gate denies, refused as one that is not there',
        'unknown_file',
        'not_found',
        {},
        (nonce) => ({ nonce, file: 'secret.txt' }),
      ),
      exposureCopyRefusal('a copy of a binary file', 'not_text', 'unsupported_media_type', {}, (nonce) => ({
        nonce,
        file: 'logo.bin',
      })),
      {
        name: 'a copy from an exposure its owner ended',
        chain: 'service',
        kind: 'exposure.copy',
        code: 'gone',
        arrange: async (h) => {
          const { exposure, nonce } = await newExposure(h);
          await h.service.invoke(ops.endExposure, undefined, { exposure_id: exposure.exposure_id });
          return {
            call: () =>
              h.service.invoke(ops.copyExposedFile, undefined, {
                exposure_id: exposure.exposure_id,
                nonce,
                file: 'notes.txt',
              }),
            record: { exposure_id: exposure.exposure_id, outcome: 'deny', reason: 'exposure_ended' },
          };
        },
      },
    ],
  },
  verifyProof: { none: NO_CALLER },
  getProof: { none: NO_CALLER },
  getPublishedKeys: { none: NO_CALLER },
  createOrg: { none: LOCAL },
  createApiKey: { none: LOCAL },
  revokeApiKey: { none: LOCAL },
};

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

const lengths = async () => ({
  service: await h.service.ctx.chains.length('service'),
  audit: await h.service.ctx.chains.length('audit'),
});

/** The record's id: an error's `receipt_id` (or the read path's `audit`), or the answer's. */
function recordId(found: unknown): string | undefined {
  const from = found as { receipt_id?: unknown; audit?: { id?: unknown } | null };
  const id = from.receipt_id ?? from.audit?.id;
  return typeof id === 'string' ? id : undefined;
}

it('every operation in the registry has an entry, and every entry an operation', () => {
  const names = OPERATIONS.map((op) => op.name);
  expect(names.filter((name) => !(name in TABLE))).toEqual([]);
  expect(Object.keys(TABLE).filter((name) => !names.includes(name))).toEqual([]);
  for (const [name, entry] of Object.entries(TABLE)) {
    if ('none' in entry) expect(entry.none.length, name).toBeGreaterThan(20);
    else expect(entry.refusals.length, name).toBeGreaterThan(0);
  }
});

const SCENARIOS = Object.entries(TABLE).flatMap(([operation, entry]) =>
  'refusals' in entry ? entry.refusals.map((scenario) => ({ operation, ...scenario })) : [],
);

describe.each(SCENARIOS)('$operation: $name', (scenario) => {
  it(`appends one verifiable ${scenario.kind} record on the ${scenario.chain} chain`, async () => {
    const { call, record } = await scenario.arrange(h);
    const before = await lengths();
    let id: string | undefined;
    if (scenario.code) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe(scenario.code);
      id = recordId((error as ServiceError).details);
    } else {
      id = recordId(await call());
    }
    expect(id, 'the refusal names its record').toBeDefined();
    const other: Chain = scenario.chain === 'service' ? 'audit' : 'service';
    const after = await lengths();
    expect(after[scenario.chain]).toBe(before[scenario.chain] + 1);
    expect(after[other]).toBe(before[other]);

    const verdict = await h.service.invoke(ops.verifyProof, undefined, { proof_id: id! });
    expect(verdict).toMatchObject({
      found: true,
      authentic: true,
      unaltered: true,
      chain: scenario.chain,
      chain_index: after[scenario.chain],
      kind: scenario.kind,
    });
    const { payload } = await h.service.invoke(ops.getProof, undefined, { id: id! });
    expect(payload).toMatchObject(record);
    expect(typeof payload.reason === 'string' || Array.isArray(payload.reasons)).toBe(true);
    const text = JSON.stringify(payload);
    for (const secret of [/ndp_/, /ndca-/, new RegExp(SOURCE_SECRET)]) expect(text).not.toMatch(secret);
  });
});

describe('what leaves no record', () => {
  it('bad input and a bearer that proves nothing append nothing', async () => {
    const org = await newOrg(h);
    const agent = await newAgent(h, org);
    const before = await lengths();
    await expect(
      h.service.invoke(ops.readRows, 'Bearer ndca-unknown', { table: 'agent_demo_records', columns: ['id'] }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(
      h.service.invoke(ops.revokeAgent, `Bearer ndp_${'x'.repeat(43)}`, { target: agent.handle }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    // Bad input from an organization key to a read: an agent reads, so there is no read to audit.
    await expect(
      h.service.invoke(ops.readRows, org.bearer, {
        table: 'agent_demo_records',
        columns: ['id'],
        limit: 0,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(
      h.service.invoke(ops.createGrant, org.bearer, { agent: 'x', columns: [] }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    // A value of the wrong type is bad input whatever the table registers.
    await expect(
      h.service.invoke(ops.loadRows, org.bearer, { name: 'agent_demo_records', rows: [{ id: { n: 1 } }] }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await lengths()).toEqual(before);
  });

  it('an expired code denied again and again without a credential is receipted once', async () => {
    const started = await h.service.invoke(ops.startConnect, undefined, machine);
    h.clock.advance(CONNECT_CODE_LIFETIME_MS + 1);
    const deny = () =>
      h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code }).then(
        () => undefined,
        (e: unknown) => e as ServiceError,
      );
    const first = await deny();
    expect(first?.details.receipt_id).toMatch(/^rcpt_/);
    const before = await lengths();
    for (let i = 0; i < 3; i++) expect((await deny())?.code).toBe('gone');
    expect(await lengths()).toEqual(before);
  });
});

it('a call the source never answers went out, so it is receipted too (api.call, status null)', async () => {
  const org = await newOrg(h);
  await source(h, org);
  const before = await lengths();
  const error = await h.service
    .invoke(ops.callSource, org.bearer, { source: 'crm', method: 'GET', path: 'contacts' })
    .then(
      () => undefined,
      (e: unknown) => e as ServiceError,
    );
  expect(error?.code).toBe('gone');
  expect(await lengths()).toEqual({ ...before, service: before.service + 1 });
  const receipt = await h.service.invoke(ops.getProof, undefined, { id: String(error?.details.receipt_id) });
  expect(receipt.payload).toMatchObject({
    kind: 'api.call',
    key_id: org.key_id,
    source: 'crm',
    path: '/api/contacts',
    status: null,
  });
});

describe('operations that keep their own record of refusals (reads), walked from the registry over HTTP', () => {
  const own = ROUTES.filter((r) => r.operation.recordRefusal);
  it('are the reads of table rows', () => {
    expect([...new Set(own.map((r) => r.operation.name))].sort()).toEqual(['readRows', 'retrieve']);
  });

  it.each(own.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    '%s: each refusal of a known agent, the adapter’s own included, appends one audit row and no receipt',
    async (_route, r) => {
      const org = await newOrg(h);
      const agent = await newAgent(h, org);
      const other = await newAgent(h, org, { agent: 'Other Bot' });
      const path = (handle: string) => r.path.replace('{handle}', handle);
      const token = agent.grant_token;
      const cases: { path: string; body: unknown; headers?: Record<string, string>; status: number }[] = [
        {
          path: path(agent.handle),
          body: { table: 'agent_demo_records', columns: ['id'], limit: 500 },
          status: 400,
        },
        {
          path: path(agent.handle),
          body: { table: 'agent_demo_records', columns: ['email; DROP'] },
          status: 400,
        },
        { path: path(agent.handle), body: '{"table":', status: 400 },
        {
          path: path(agent.handle),
          body: 'table=agent_demo_records',
          headers: { 'content-type': 'text/plain' },
          status: 415,
        },
      ];
      if (r.params) {
        cases.push(
          { path: path('Bob_X'), body: { table: 'agent_demo_records', columns: ['id'] }, status: 400 },
          { path: path(other.handle), body: { table: 'agent_demo_records', columns: ['id'] }, status: 403 },
        );
      }
      for (const sent of cases) {
        const before = await lengths();
        const answer = await h.request(r.method.toUpperCase(), sent.path, {
          token,
          body: sent.body,
          ...(sent.headers ? { headers: sent.headers } : {}),
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(sent.status);
        expect(answer.body.audit, JSON.stringify(sent)).toMatchObject({ chain_index: before.audit + 1 });
        expect(answer.body.receipt_id).toBeUndefined();
        expect(await lengths()).toEqual({ ...before, audit: before.audit + 1 });
        const row = await h.service.invoke(ops.getProof, undefined, { id: answer.body.audit.id });
        expect(row.payload).toMatchObject({
          kind: 'audit.read',
          ...agentNamed(agent),
          outcome: 'deny',
          reason: answer.body.error,
          row_count: 0,
        });
        expect(
          await h.service.invoke(ops.verifyProof, undefined, { proof_id: answer.body.audit.id }),
        ).toMatchObject({ authentic: true, unaltered: true, chain: 'audit' });
      }
      // An organization key is no reader: its refusal is the invoker's receipt, not an audit row.
      const before = await lengths();
      const byKey = await h.request(r.method.toUpperCase(), path(agent.handle), {
        token: org.api_key,
        body: { table: 'agent_demo_records', columns: ['id'] },
      });
      expect(byKey.status).toBe(403);
      expect(byKey.body.receipt_id).toMatch(/^rcpt_/);
      expect(await lengths()).toEqual({ ...before, service: before.service + 1 });
    },
  );
});

describe('the caller check before an operation, walked from the registry', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.close());

  const credentialed = OPERATIONS.filter((op) => op.caller.kind === 'org' || op.caller.kind === 'agent');
  it.each(credentialed.map((op) => [op.name, op] as const))(
    '%s: a valid credential of the other kind is refused with a verifiable operation.refused receipt',
    async (_name, op) => {
      const org = await newOrg(h);
      const agent = await newAgent(h, org);
      const wrong = op.caller.kind === 'org' ? agent.bearer : org.bearer;
      const before = await h.service.ctx.chains.length('service');
      // A valid input (the sample), naming things that need not exist: the caller is checked first.
      const ids = {
        handle: agent.handle,
        disposable: agent.handle,
        capsule: 'cap_none',
        fabricGrant: 'fgr_none',
        blob: '00000000-0000-4000-8000-000000000001',
        proof: agent.receipt_id,
        rule: 'rule_000000000000',
      };
      const refused = await h.service.invoke(op, wrong, SAMPLES[op.name]!.input(ids) as never).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ServiceError);
      expect((refused as ServiceError).code).toBe('wrong_credential');
      const receiptId = (refused as ServiceError).details.receipt_id as string;
      expect(await h.service.ctx.chains.length('service')).toBe(before + 1);
      const receipt = await h.service.invoke(ops.getProof, undefined, { id: receiptId });
      expect(receipt.payload).toMatchObject({
        kind: 'operation.refused',
        operation: op.name,
        reason: 'wrong_credential',
        ...(op.caller.kind === 'org' ? { agent_id: agent.agent_id, jti: agent.jti } : { key_id: org.key_id }),
      });
      expect(await h.service.invoke(ops.verifyProof, undefined, { proof_id: receiptId })).toMatchObject({
        authentic: true,
        unaltered: true,
      });
    },
  );

  it('a key without the scope, and an agent token under another agent’s handle, are receipted too', async () => {
    const org = await newOrg(h);
    const agent = await newAgent(h, org);
    const fabricOnly = await h.service.invoke(ops.createApiKey, undefined, {
      org_id: org.org_id,
      scopes: ['fabric'],
    });
    const noScope = await h.service
      .invoke(ops.listAgents, bearer(fabricOnly.api_key), {})
      .catch((error: ServiceError) => error);
    expect(noScope).toMatchObject({
      code: 'missing_scope',
      details: { receipt_id: expect.stringMatching(/^rcpt_/) },
    });
    const otherHandle = await h.service
      .invoke(ops.listInbox, agent.bearer, { handle: 'someone-else' })
      .catch((error: ServiceError) => error);
    expect(otherHandle).toMatchObject({
      code: 'forbidden',
      details: { receipt_id: expect.stringMatching(/^rcpt_/) },
    });
    for (const error of [noScope, otherHandle] as ServiceError[]) {
      const verdict = await h.service.invoke(ops.verifyProof, undefined, {
        proof_id: error.details.receipt_id as string,
      });
      expect(verdict).toMatchObject({ authentic: true, kind: 'operation.refused' });
    }
  });
});
