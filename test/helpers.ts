// Shared test fixtures: a fresh data dir per test, the in-process service and app, JSON requests.
import { ops } from '../src/backend/operations/index.ts';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Service, type ServiceOptions } from '../src/backend/service.ts';
import { createApp } from '../src/http/app.ts';
import { mountLinkPages } from '../src/http/link-pages.ts';
import { mountExposePages } from '../src/http/expose-pages.ts';
import { mountConnectPages } from '../src/http/connect-pages.ts';
import { mountMcp } from '../src/tools/http.ts';
import type { Clock } from '../src/backend/context.ts';
import type { Admission } from '../src/backend/seal-files.ts';
import { openEnrollChallenge, type FabricKeyPair } from '../src/sdk/fabric.ts';

export function tempDir(prefix = 'svc-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A movable clock: tests advance it to expire tokens, grants and envelopes. */
export function testClock(start = new Date()): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  const clock = (() => new Date(now)) as Clock & { advance(ms: number): void };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface Harness {
  dir: string;
  service: Service;
  app: ReturnType<typeof createApp>;
  clock: ReturnType<typeof testClock>;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any }>;
  close(): void;
}

export function harness(options: Pick<ServiceOptions, 'fabricQuotas'> = {}): Harness {
  const { dir, cleanup } = tempDir();
  const clock = testClock();
  const service = new Service({ ...options, dataDir: dir, clock });
  // The app as `svc serve` builds it: the API with the MCP transports and the approval page.
  const app = createApp({
    service,
    mounts: [
      (a) => mountMcp(a, service.invoker, { clock }),
      (a) => mountConnectPages(a, service.invoker, { clock }),
      (a) => mountLinkPages(a, service.invoker),
      (a) => mountExposePages(a, service.invoker),
    ],
  });
  return {
    dir,
    service,
    app,
    clock,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      }
      const response = await app.request(`http://127.0.0.1${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    close() {
      service.close();
      cleanup();
    },
  };
}

/** An organization with its key and a grant on the demo table. */
export async function orgWithAgent(
  h: Harness,
  name = 'Acme',
  grant: Record<string, unknown> = { agent: 'Support Bot', columns: ['id', 'region', 'email'] },
) {
  const org = await h.service.invoke(ops.createOrg, undefined, { name });
  const created = await h.request('POST', '/api/v1/governance/grant', { token: org.api_key, body: grant });
  if (created.status !== 201) throw new Error(`grant failed: ${JSON.stringify(created.body)}`);
  return {
    ...org,
    agent: created.body as { grant_token: string; handle: string; agent_id: string; jti: string },
  };
}

/** A new organization on the service: its id, its first key and that key's id. */
export function createOrg(service: Service, name = 'Acme') {
  return service.invoke(ops.createOrg, undefined, { name });
}

/**
 * Enrolls an agent's Fabric key in process, as the SDK's `enrollFabric` does over HTTP: a challenge
 * sealed to the public key, opened with the private key, its text sent back as the proof.
 */
export async function enrollKey(service: Service, bearer: string, handle: string, keys: FabricKeyPair) {
  const challenge = await service.invoke(ops.requestEnrollChallenge, bearer, {
    handle,
    ecdh_pubkey_hex: keys.publicKeyHex,
  });
  const proof = await openEnrollChallenge({
    challenge_b64: challenge.challenge_b64,
    privateKeyHex: keys.privateKeyHex,
  });
  return service.invoke(ops.enrollFabric, bearer, { handle, ecdh_pubkey_hex: keys.publicKeyHex, proof });
}

/**
 * A store as an older svc wrote it: every migration numbered below `version` applied and recorded,
 * and an organization `org_1` in it. The caller adds what that version held, closes it, and opens
 * it with today's Store to see the later migrations at work.
 */
export function storeBefore(file: string, version: number): DatabaseSync {
  const migrations = new URL('../src/backend/store/migrations/', import.meta.url);
  const before = readdirSync(migrations)
    .filter((name) => /^\d+_.+\.sql$/.test(name) && Number.parseInt(name, 10) < version)
    .sort();
  const old = new DatabaseSync(file);
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)');
  for (const name of before) {
    old.exec(readFileSync(new URL(name, migrations), 'utf8'));
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(Number.parseInt(name, 10), 'then');
  }
  old.exec(`PRAGMA user_version = ${before.length}`);
  old.exec("INSERT INTO orgs VALUES ('org_1', 'Acme', 'then')");
  return old;
}

/** The read gate's answers the file-core tests hand in: everything allowed, or everything denied. */
export const admitEverything = async (): Promise<Admission> => ({
  allowed: true,
  outcome: 'allowed',
  rule_id: null,
  audit_id: null,
});
export const admitNothing = async (): Promise<Admission> => ({
  allowed: false,
  outcome: 'denied',
  rule_id: 'computer:1',
  audit_id: 'aud_1_x',
  message: 'rule computer:1 denies reading it',
});
