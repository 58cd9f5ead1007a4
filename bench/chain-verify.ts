// Benchmark `chain-verify`: builds a read-audit chain of BENCH_CHAIN_ROWS rows (default 1,000,000)
// for AGENTS agents as fast as the chain API allows, then walks it with verifyAll twice: in full
// (hashes, links and Ed25519 signatures) and without signatures (hashes and links, what an auditor
// without the service key can redo); and asks for the policy board of the AGENTS agents over that
// chain (svc_policy's operation), which must not search the chain once per agent. Figures are
// informational: there is no target.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import { median, progress, timed, withTempDir, type Benchmark } from './lib.ts';

const DEFAULT_ROWS = 1_000_000;
/** Rows per write transaction: one commit per batch instead of one per row. */
const BATCH = 10_000;
const PROGRESS_EVERY = 100_000;
const AGENTS = 1000;
const BOARD_CALLS = 5;

function chainRows(): number {
  const raw = process.env.BENCH_CHAIN_ROWS?.trim();
  if (!raw) return DEFAULT_ROWS;
  const rows = Number(raw.replaceAll('_', ''));
  if (!Number.isSafeInteger(rows) || rows < 1)
    throw new Error(`BENCH_CHAIN_ROWS must be a positive integer, not ${raw}`);
  return rows;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export const chainVerify: Benchmark = {
  name: 'chain-verify',
  description:
    'build an audit chain (BENCH_CHAIN_ROWS, default 1,000,000), then verifyAll with and without signatures',
  run: () =>
    withTempDir('chain', async (dir) => {
      const rows = chainRows();
      const service = new Service({ dataDir: dir });
      try {
        const { org_id: orgId, api_key: apiKey } = await service.invoke(ops.createOrg, undefined, {
          name: 'Bench Org',
        });
        const owner = `Bearer ${apiKey}`;
        const { store, chains } = service.ctx;
        progress(`granting ${AGENTS} agents`);
        const agents: { agent_id: string; grant_token: string }[] = [];
        for (let i = 0; i < AGENTS; i++) {
          agents.push(await service.invoke(ops.createGrant, owner, { agent: `Agent ${i}`, columns: ['id'] }));
        }
        // A body shaped like the one a real read appends, so rows have a realistic size.
        const body = {
          org_id: orgId,
          agent_id: `agt_${randomUUID()}`,
          handle: 'bench-agent',
          jti: randomUUID(),
          table: 'agent_demo_records',
          columns: ['id', 'region', 'email'],
          where: {},
          limit: 10,
          purpose: null,
          outcome: 'allow',
          denied_columns: [],
          row_count: 10,
        };

        // One transaction per batch, and a turn of the event loop between batches so Ctrl-C (run.ts's
        // SIGINT handler) is honoured within a batch. Each verifyAll pass is one synchronous call:
        // Ctrl-C there takes effect when the pass ends.
        const buildStart = performance.now();
        for (let done = 0; done < rows;) {
          const end = Math.min(rows, done + BATCH);
          await store.write(async () => {
            for (let i = done; i < end; i++) {
              await chains.append('audit', {
                kind: 'audit.read',
                org_id: orgId,
                signed_at: new Date().toISOString(),
                body: { ...body, agent_id: agents[i % AGENTS]!.agent_id },
              });
            }
          });
          if (Math.floor(end / PROGRESS_EVERY) > Math.floor(done / PROGRESS_EVERY) || end === rows) {
            progress(`built ${end.toLocaleString('en-US')} / ${rows.toLocaleString('en-US')} rows`);
          }
          done = end;
          await setImmediate();
        }
        const build = { seconds: (performance.now() - buildStart) / 1000 };
        // Each agent's newest row is a real read, as the read path writes it.
        for (const agent of agents) {
          await service.invoke(ops.readRows, `Bearer ${agent.grant_token}`, {
            table: 'agent_demo_records',
            columns: ['id'],
            limit: 1,
          });
        }
        const boardTimes: number[] = [];
        for (let i = 0; i < BOARD_CALLS; i++) {
          const start = performance.now();
          const board = await service.invoke(ops.getPolicyBoard, owner, {});
          boardTimes.push(performance.now() - start);
          if (board.count !== AGENTS || board.agents.some((a) => !a.last_read)) {
            throw new Error('the board does not list every agent with its last read');
          }
        }
        progress(`policy board of ${AGENTS} agents: ${median(boardTimes).toFixed(1)} ms`);
        const length = (await chains.length('audit')) - AGENTS;
        if (length !== rows) throw new Error(`the chain has ${length} rows, expected ${rows}`);
        const dbBytes = fileSize(join(dir, 'svc.db')) + fileSize(join(dir, 'svc.db-wal'));

        const onProgress = (done: number) => progress(`verified ${done.toLocaleString('en-US')} rows`);
        // The chain walked is the built rows plus the agents' real reads.
        const full = timed(() => chains.verifyAll('audit', { onProgress }));
        progress(`full verification: ${full.seconds.toFixed(1)} s`);
        const linksOnly = timed(() => chains.verifyAll('audit', { signatures: false, onProgress }));
        progress(`hashes and links only: ${linksOnly.seconds.toFixed(1)} s`);
        for (const [what, run] of [
          ['full', full],
          ['hashes-only', linksOnly],
        ] as const) {
          if (!run.result.ok || run.result.length !== rows + AGENTS) {
            throw new Error(`${what} verification failed: ${JSON.stringify(run.result)}`);
          }
        }

        return {
          metrics: [
            { key: 'rows', label: 'chain length', value: rows, unit: 'rows' },
            {
              key: 'build_rows_per_sec',
              label: `build (append, ${BATCH} per transaction)`,
              value: rows / build.seconds,
              unit: 'rows/s',
            },
            { key: 'build_seconds', label: 'build time', value: build.seconds, unit: 's' },
            {
              key: 'verify_full_rows_per_sec',
              label: 'verifyAll (hashes, links, signatures)',
              value: rows / full.seconds,
              unit: 'rows/s',
            },
            { key: 'verify_full_seconds', label: 'verifyAll full time', value: full.seconds, unit: 's' },
            {
              key: 'verify_links_rows_per_sec',
              label: 'verifyAll (hashes, links only)',
              value: rows / linksOnly.seconds,
              unit: 'rows/s',
            },
            {
              key: 'verify_links_seconds',
              label: 'verifyAll hashes-only time',
              value: linksOnly.seconds,
              unit: 's',
            },
            { key: 'db_megabytes', label: 'store size (db + wal)', value: dbBytes / 1e6, unit: 'MB' },
            {
              key: 'policy_board_ms',
              label: `policy board, ${AGENTS} agents over the chain (median of ${BOARD_CALLS})`,
              value: median(boardTimes),
              unit: 'ms',
            },
          ],
          checks: [],
          notes: [`chain of ${rows.toLocaleString('en-US')} rows; set BENCH_CHAIN_ROWS to change it`],
        };
      } finally {
        service.close();
      }
    }),
};
