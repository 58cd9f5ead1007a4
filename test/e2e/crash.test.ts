// Crash: `svc serve` is SIGKILLed again and again while agents read; every read that was answered
// 200 must still be in the store afterwards, and both signed chains must still verify end to end.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, killAll, startServe } from './procs.ts';

const ROUNDS = 10;
const READERS = 4;

interface Answered {
  id: string;
  chain_index: number;
  round: number;
}

describe('Crash', () => {
  const home = tempDir('svc-crash-');
  let agent: { handle: string; token: string };

  beforeAll(async () => {
    const service = new Service({ dataDir: home.dir });
    try {
      const org = await service.invoke(ops.createOrg, undefined, { name: 'Crash Co' });
      const grant = await service.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
        agent: 'Crash Reader',
        columns: ['id', 'email'],
      });
      agent = { handle: grant.handle, token: grant.grant_token };
    } finally {
      service.close();
    }
  });

  afterEach(async () => {
    await killAll();
  });

  afterAll(async () => {
    await killAll();
    home.cleanup();
  });

  it('keeps every answered read and both chains intact across repeated SIGKILLs of svc serve', async () => {
    const answered: Answered[] = [];
    const unexpected: string[] = [];
    const perRound: number[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServe(childEnv({ SVC_HOME: home.dir }));
      const pool = new Pool(server.url, {
        connections: READERS,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      let killed = false;
      let count = 0;
      // The kill comes after a random number of answers, so it lands at a different point of the
      // read path each round. At least 6, so ten rounds answer more than the ROUNDS * 5 the end asks.
      const killAfter = 6 + Math.floor(Math.random() * 10);
      let answers = 0;
      let enoughAnswered!: () => void;
      const enough = new Promise<void>((resolve) => (enoughAnswered = resolve));

      const reader = async () => {
        while (!killed) {
          let status: number;
          let text: string;
          try {
            const response = await pool.request({
              method: 'POST',
              path: `/api/agents/${agent.handle}/read`,
              headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ table: 'agent_demo_records', columns: ['id', 'email'], limit: 5 }),
            });
            status = response.statusCode;
            text = await response.body.text();
            // Any answer counts, so a server that only fails still gets killed and reported.
            if (++answers >= killAfter) enoughAnswered();
          } catch (error) {
            // Only the kill may break a request; a failure while the server is up is a defect.
            if (!killed)
              unexpected.push(`round ${round}: request failed before the kill: ${(error as Error).message}`);
            return;
          }
          if (status !== 200) {
            unexpected.push(`round ${round}: HTTP ${status}: ${text}`);
            continue;
          }
          const body = JSON.parse(text) as {
            count: number;
            rows: unknown[];
            audit: { id: string; chain_index: number };
          };
          if (body.count !== 5 || body.rows.length !== 5)
            unexpected.push(`round ${round}: ${body.count} rows returned`);
          answered.push({ id: body.audit.id, chain_index: body.audit.chain_index, round });
          count++;
        }
      };

      const readers = Array.from({ length: READERS }, () => reader());
      // Readers that all stopped early (each has recorded why) cannot answer more: kill at once.
      await Promise.race([enough, Promise.all(readers)]);
      // Mark first, then kill: a request that fails from here on is the kill's doing.
      killed = true;
      server.child.kill('SIGKILL');
      const exit = await server.exited;
      expect(exit.signal).toBe('SIGKILL');
      await Promise.all(readers);
      await pool.destroy();
      perRound.push(count);
    }

    expect(unexpected).toEqual([]);
    // The test must be able to fail: reads have to have been answered in (nearly) every round.
    expect(answered.length).toBeGreaterThan(ROUNDS * 5);
    expect(perRound.filter((n) => n > 0).length).toBeGreaterThanOrEqual(ROUNDS - 1);

    const indexes = answered.map((a) => a.chain_index);
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(new Set(answered.map((a) => a.id)).size).toBe(answered.length);

    const service = new Service({ dataDir: home.dir });
    try {
      const missing: string[] = [];
      for (const a of answered) {
        const verdict = await service.invoke(ops.verifyProof, undefined, { proof_id: a.id });
        if (!verdict.found || !verdict.authentic || !verdict.unaltered || verdict.chain !== 'audit') {
          missing.push(`${a.id} (round ${a.round}): ${JSON.stringify(verdict)}`);
        } else if (verdict.chain_index !== a.chain_index) {
          missing.push(`${a.id}: answered chain_index ${a.chain_index}, stored ${verdict.chain_index}`);
        }
      }
      expect(missing).toEqual([]);

      const audit = service.ctx.chains.verifyAll('audit');
      expect(audit).toMatchObject({ ok: true, first_broken_index: null, reason: null });
      // The chain may hold reads committed just before a kill whose answers never arrived, never fewer.
      expect(audit.length).toBeGreaterThanOrEqual(answered.length);
      expect(audit.length).toBeGreaterThanOrEqual(Math.max(...indexes));
      const rows = (await service.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit_chain'))!.n;
      expect(rows).toBe(audit.length);

      const serviceChain = service.ctx.chains.verifyAll('service');
      expect(serviceChain).toMatchObject({ ok: true, first_broken_index: null, reason: null });
      expect(serviceChain.length).toBeGreaterThanOrEqual(1); // the grant's receipt
    } finally {
      service.close();
    }
  });
});
