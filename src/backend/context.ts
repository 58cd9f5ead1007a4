// What every part of the service core shares: the store, the chains, the keys, the clock and the
// storage quotas.
import { randomUUID } from 'node:crypto';
import type { Store } from './store/db.ts';
import type { Chains } from './chains.ts';
import type { ServiceSigner } from './signer.ts';
import type { KeyVault } from '../vault/index.ts';
import type { ResolveHost } from './network.ts';
import type { Asker, GateAsk } from '../gate/check.ts';
import type { Decision } from '../gate/engine.ts';
import type { Action } from '../gate/rules.ts';

/**
 * The read gate of this computer as the core uses it (a GateCheck, gate-check.ts): `check` decides,
 * counts and records; `explain` only decides.
 */
export interface LocalGate {
  check(ask: GateAsk, asker: Asker): Promise<{ decision: Decision; receipt_id: string | null }>;
  explain(path: string, action: Action, asker: Asker): Promise<{ decision: Decision }>;
}

/** Injected so tests can move time (token expiry, envelope ttl) without waiting. */
export type Clock = () => Date;

const MiB = 1024 * 1024;

/**
 * The most live Fabric envelopes (not yet expired or fully fetched) one party may have in the
 * store, in decoded ciphertext bytes and in count. A send that would pass one is refused.
 */
export interface FabricQuotas {
  /** Addressed to one recipient address, from every sender. */
  recipientBytes: number;
  recipientEnvelopes: number;
  /** Sent by one agent, to every address. */
  senderBytes: number;
  senderEnvelopes: number;
  /** Sent by all the agents of one organization: an organization key can make new agents at will. */
  organizationBytes: number;
  organizationEnvelopes: number;
}

/**
 * One envelope is at most about 12 MiB of ciphertext (a 16 MiB request body of base64). An address
 * holds five such at once or a thousand small messages; an agent, four full addresses' worth; an
 * organization, four agents' worth. docs/API.md gives the reasons.
 */
export const DEFAULT_FABRIC_QUOTAS: Readonly<FabricQuotas> = Object.freeze({
  recipientBytes: 64 * MiB,
  recipientEnvelopes: 1_000,
  senderBytes: 256 * MiB,
  senderEnvelopes: 5_000,
  organizationBytes: 1024 * MiB,
  organizationEnvelopes: 20_000,
});

export interface Context {
  store: Store;
  chains: Chains;
  signer: ServiceSigner;
  vault: KeyVault;
  clock: Clock;
  fabricQuotas: FabricQuotas;
  /** How external API calls resolve host names (the system resolver unless injected, as tests do). */
  resolveHost?: ResolveHost | undefined;
  /**
   * The read gate of the computer whose store this is, loaded on first use: what operations that
   * hand this computer's files to someone without a credential (exposures) ask before each file.
   * Absent, those operations refuse: without a gate nothing is let out.
   */
  localGate?: (() => Promise<LocalGate>) | undefined;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID()}`;
}

export function nowIso(ctx: Context): string {
  return ctx.clock().toISOString();
}

/** Whether a stored expiry time has passed. An unreadable time counts as passed: fail closed. */
export function hasPassed(ctx: Context, iso: string): boolean {
  return !(Date.parse(iso) > ctx.clock().getTime());
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  return JSON.parse(text) as T;
}
