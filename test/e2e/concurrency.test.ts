// Concurrency: four processes append to one data dir at once (audit rows and signed receipts);
// nothing may be lost, duplicated or forked, and both chains must verify from their first entry.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, errorLines, killAll, spawnNode, type Spawned } from './procs.ts';

const WORKERS = 4;
const N = 150;

interface WorkerResult {
  audits: { id: string; chain_index: number }[];
  receipts: { id: string; chain_index: number }[];
}

describe('Concurrency', () => {
  const home = tempDir('svc-concurrency-');
  const fresh = tempDir('svc-concurrency-fresh-');

  afterEach(async () => {
    await killAll();
  });

  afterAll(async () => {
    await killAll();
    home.cleanup();
    fresh.cleanup();
  });

  it('four `svc org create` at once on a fresh data dir agree on the schema and the keys', async () => {
    // Migrations, the WAL switch and first-use key creation all race here.
    const runs = Array.from({ length: WORKERS }, (_, i) =>
      spawnNode(
        ['bin/svc.js', 'org', 'create', '--name', `Fresh ${i}`, '--json'],
        childEnv({ SVC_HOME: fresh.dir }),
      ),
    );
    const exits = await Promise.all(runs.map((r) => r.exited));
    exits.forEach((exit, i) => {
      expect({ run: i, code: exit.code, errors: errorLines(exit.stderr) }).toEqual({
        run: i,
        code: 0,
        errors: [],
      });
    });
    const orgs = exits.map((exit) => JSON.parse(exit.stdout) as { org_id: string; api_key: string });
    expect(new Set(orgs.map((o) => o.org_id)).size).toBe(WORKERS);

    const service = new Service({ dataDir: fresh.dir });
    try {
      expect(
        (await service.ctx.store.all('SELECT version FROM schema_migrations')).length,
      ).toBeGreaterThanOrEqual(1);
      for (const org of orgs) {
        const grant = await service.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
          agent: 'Checker',
          columns: ['id', 'email', 'balance'],
        });
        // Every process sealed its demo rows under the same column keys: they all open here.
        const read = await service.invoke(ops.readRows, `Bearer ${grant.grant_token}`, {
          handle: grant.handle,
          table: 'agent_demo_records',
          columns: ['id', 'email', 'balance'],
          limit: 200,
        });
        expect(read.count).toBe(200);
        expect(read.rows[0]).toMatchObject({ id: 1, email: expect.stringMatching(/@example\.test$/) });
      }
      const serviceChain = service.ctx.chains.verifyAll('service');
      expect(serviceChain.ok).toBe(true);
      expect(serviceChain.length).toBeGreaterThanOrEqual(WORKERS);
      expect(service.ctx.chains.verifyAll('audit')).toMatchObject({ ok: true, length: WORKERS });
    } finally {
      service.close();
    }
  });

  it('four processes appending to one data dir keep both chains whole and gap-free', async () => {
    // One organization, one agent (and grant) per worker.
    const setup = new Service({ dataDir: home.dir });
    let orgId: string;
    let tokens: string[];
    let baseline: { service: number; audit: number; decisions: number };
    try {
      const org = await setup.invoke(ops.createOrg, undefined, { name: 'Concurrent Co' });
      orgId = org.org_id;
      tokens = [];
      for (let i = 0; i < WORKERS; i++) {
        const grant = await setup.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
          agent: `Worker ${i}`,
          columns: ['id', 'email'],
        });
        tokens.push(grant.grant_token);
      }
      baseline = {
        service: await setup.ctx.chains.length('service'),
        audit: await setup.ctx.chains.length('audit'),
        decisions: await decisionsOf(setup, orgId),
      };
      const grants = (await setup.ctx.store.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM service_chain WHERE kind = 'agent.grant'",
      ))!.n;
      expect(grants).toBe(WORKERS);
    } finally {
      setup.close();
    }
    expect(baseline.service).toBeGreaterThanOrEqual(WORKERS); // one agent.grant receipt per grant
    expect(baseline.audit).toBe(0);

    const workers: Spawned[] = tokens.map((token) =>
      spawnNode(
        ['test/e2e/append-worker.ts'],
        childEnv({ SVC_HOME: home.dir, SVC_WORKER_TOKEN: token, SVC_WORKER_N: String(N) }),
        { stdin: true },
      ),
    );
    // Start them together: wait until every worker has opened the store, then say go.
    await Promise.all(workers.map((w) => waitForLine(w, 'ready', 30_000)));
    for (const w of workers) w.child.stdin!.end('go\n');

    const exits = await Promise.all(workers.map((w) => w.exited));
    exits.forEach((exit, i) => {
      expect({ worker: i, code: exit.code, signal: exit.signal, errors: errorLines(exit.stderr) }).toEqual({
        worker: i,
        code: 0,
        signal: null,
        errors: [],
      });
    });
    const results = exits.map((exit) => JSON.parse(exit.stdout.split('\n')[1]!) as WorkerResult);

    const audits = results.flatMap((r) => r.audits);
    const receipts = results.flatMap((r) => r.receipts);
    for (const r of results) {
      expect(r.audits).toHaveLength(N);
      expect(r.receipts).toHaveLength(N);
      // Each worker's own appends land in its order.
      expect(isIncreasing(r.audits.map((a) => a.chain_index))).toBe(true);
      expect(isIncreasing(r.receipts.map((a) => a.chain_index))).toBe(true);
    }
    const allIds = [...audits, ...receipts].map((e) => e.id);
    expect(new Set(allIds).size).toBe(2 * WORKERS * N);

    // Audit positions are exactly 1..4N, each handed to one append.
    const auditIndexes = audits.map((a) => a.chain_index).sort((a, b) => a - b);
    expect(auditIndexes).toEqual(Array.from({ length: WORKERS * N }, (_, i) => i + 1));
    // Receipt positions are exactly the ones after the setup's receipts.
    const receiptIndexes = receipts.map((a) => a.chain_index).sort((a, b) => a - b);
    expect(receiptIndexes).toEqual(Array.from({ length: WORKERS * N }, (_, i) => baseline.service + i + 1));

    // The workers really did run at the same time: their audit positions interleave.
    const owner = new Map<number, number>();
    results.forEach((r, w) => r.audits.forEach((a) => owner.set(a.chain_index, w)));
    let switches = 0;
    for (let i = 2; i <= WORKERS * N; i++) if (owner.get(i) !== owner.get(i - 1)) switches++;
    expect(switches).toBeGreaterThan(WORKERS);

    const service = new Service({ dataDir: home.dir });
    try {
      const auditChain = service.ctx.chains.verifyAll('audit');
      expect(auditChain).toEqual({ ok: true, length: WORKERS * N, first_broken_index: null, reason: null });
      const serviceChain = service.ctx.chains.verifyAll('service');
      expect(serviceChain).toEqual({
        ok: true,
        length: baseline.service + WORKERS * N,
        first_broken_index: null,
        reason: null,
      });
      const count = async (sql: string) => (await service.ctx.store.get<{ n: number }>(sql))!.n;
      expect(await count('SELECT COUNT(*) AS n FROM audit_chain')).toBe(WORKERS * N);
      expect(await count('SELECT COUNT(*) AS n FROM service_chain')).toBe(baseline.service + WORKERS * N);
      // Every compute was metered once: the counter upserts did not lose updates either.
      expect((await decisionsOf(service, orgId)) - baseline.decisions).toBe(WORKERS * N);

      const stored = await service.ctx.store.all<{ id: string; chain_index: number }>(
        'SELECT id, chain_index FROM audit_chain',
      );
      const byId = new Map(stored.map((r) => [r.id, r.chain_index]));
      expect(audits.every((a) => byId.get(a.id) === a.chain_index)).toBe(true);
      // Spot-check full verification (signature and both links) of a sample of entries.
      for (const entry of [...audits.slice(0, 5), ...receipts.slice(-5)]) {
        expect(await service.invoke(ops.verifyProof, undefined, { proof_id: entry.id })).toMatchObject({
          found: true,
          authentic: true,
          unaltered: true,
        });
      }
    } finally {
      service.close();
    }
  });
});

async function decisionsOf(service: Service, orgId: string): Promise<number> {
  return (await service.ctx.store.get<{ n: number }>(
    'SELECT COALESCE(SUM(decisions), 0) AS n FROM usage_counters WHERE org_id = ?',
    orgId,
  ))!.n;
}

function isIncreasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v > values[i - 1]!);
}

function waitForLine(worker: Spawned, line: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const { stdout, stderr } = worker.output();
      reject(
        new Error(
          `worker printed no \`${line}\` within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    const check = () => {
      if (worker.output().stdout.split('\n').includes(line)) {
        clearTimeout(timer);
        worker.child.stdout!.off('data', check);
        resolve();
      }
    };
    worker.child.stdout!.on('data', check);
    worker.exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (code ${exit.code}) before \`${line}\`:\n${exit.stderr}`));
    }, reject);
    check();
  });
}
