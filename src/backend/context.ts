// What every part of the service core shares: the store, the chains, the keys and the clock.
import { randomUUID } from 'node:crypto';
import type { Store } from './store/db.ts';
import type { Chains } from './chains.ts';
import type { ServiceSigner } from './signer.ts';
import type { KeyVault } from '../vault/index.ts';
import type { ResolveHost } from './network.ts';

/** Injected so tests can move time (token expiry, envelope ttl) without waiting. */
export type Clock = () => Date;

export interface Context {
  store: Store;
  chains: Chains;
  signer: ServiceSigner;
  vault: KeyVault;
  clock: Clock;
  /** How external API calls resolve host names (the system resolver unless injected, as tests do). */
  resolveHost?: ResolveHost | undefined;
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
