// Row loads in chunks: each chunk commits on its own, so other processes get the write lock between
// chunks, and reads see none of a load's rows until it publishes them all at once. A load holds
// its table's lease: a second load meanwhile is refused with 409, and a load whose process died
// leaves nothing visible; once its lease has run out, the next load removes what it left.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { Store } from '../../src/backend/store/db.ts';
import {
  DEMO_ROW_COUNT,
  DEMO_TABLE,
  LOAD_LEASE_MS,
  getTable,
  loadRows,
  selectRows,
} from '../../src/backend/tables.ts';
import { harness, storeBefore, tempDir, type Harness } from '../helpers.ts';
import { childEnv, killAll, spawnNode, waitForOutput, type Spawned } from '../e2e/procs.ts';

const TABLE = 'bulk';
const COLUMNS = [
  { name: 'id', classification: 'public', storage: 'plaintext' as const },
  { name: 'region', classification: 'public', storage: 'plaintext' as const },
  { name: 'email', classification: 'pii', storage: 'encrypted' as const },
  { name: 'notes', classification: 'confidential', storage: 'encrypted' as const },
];

let h: Harness;
afterEach(async () => {
  await killAll();
  h?.close();
});

async function setup() {
  h = harness();
  const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const bearer = `Bearer ${org.api_key}`;
  await h.service.invoke(ops.registerTable, bearer, { name: TABLE, columns: COLUMNS });
  const table = (await getTable(h.service.ctx, org.org_id, TABLE))!;
  return { orgId: org.org_id, bearer, table };
}

function rowsOf(count: number, tag: string) {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    region: ['eu', 'us', 'apac'][i % 3]!,
    email: `${tag}${i + 1}@example.test`,
    notes: `${tag} row ${i + 1}`,
  }));
}

/** What reads see: every published row, its sealed email opened. */
async function visible(orgId: string) {
  const table = (await getTable(h.service.ctx, orgId, TABLE))!;
  return selectRows(h.service.ctx, orgId, table, ['id', 'email'], {}, 1_000_000);
}

/** What the file holds, published or not. */
function stored(orgId: string) {
  const count = (sql: string) =>
    (h.service.ctx.store.readDb.prepare(sql).get(orgId, TABLE) as { n: number }).n;
  return {
    rows: count('SELECT COUNT(*) AS n FROM data_rows WHERE org_id = ? AND table_name = ?'),
    cells: count('SELECT COUNT(*) AS n FROM data_cells WHERE org_id = ? AND table_name = ?'),
    visible: count('SELECT visible_rows AS n FROM data_tables WHERE org_id = ? AND name = ?'),
  };
}

function startWorker(orgId: string, rows: number, extra: Record<string, string> = {}): Spawned {
  return spawnNode(
    ['test/backend/load-worker.ts'],
    childEnv({
      SVC_HOME: h.dir,
      SVC_LOAD_ORG: orgId,
      SVC_LOAD_TABLE: TABLE,
      SVC_LOAD_ROWS: String(rows),
      ...extra,
    }),
    { stdin: true },
  );
}

/** A promise the test resolves itself: a load's chunk hook waits on it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function refusal(call: Promise<unknown>): Promise<ServiceError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('a load in chunks', () => {
  it('5,000 rows in chunks of 500: no read sees any of them until the load publishes, then every one', async () => {
    const { orgId, bearer } = await setup();
    const grant = await h.service.invoke(ops.createGrant, bearer, {
      agent: 'Reader',
      table: TABLE,
      columns: ['id', 'email'],
    });
    const seen: { written: number; stored: number; visible: number; agentRead: number }[] = [];
    const loaded = await loadRows(h.service.ctx, orgId, TABLE, rowsOf(5_000, 'n'), {
      chunkRows: 500,
      onChunk: async (written) => {
        // Between two chunks: the rows written so far are committed, yet reads see none of them.
        const read = await h.service.invoke(ops.readRows, `Bearer ${grant.grant_token}`, {
          handle: grant.handle,
          table: TABLE,
          columns: ['id', 'email'],
          limit: 200,
        });
        seen.push({
          written,
          stored: stored(orgId).rows,
          visible: (await visible(orgId)).length,
          agentRead: read.count,
        });
      },
    });
    expect(loaded).toEqual({ table: TABLE, loaded: 5_000, total_rows: 5_000 });
    expect(seen).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        written: (i + 1) * 500,
        stored: (i + 1) * 500,
        visible: 0,
        agentRead: 0,
      })),
    );
    const rows = await visible(orgId);
    expect(rows).toHaveLength(5_000);
    expect(rows[0]).toEqual({ id: 1, email: 'n1@example.test' });
    expect(rows[4_999]).toEqual({ id: 5_000, email: 'n5000@example.test' });
    expect(stored(orgId)).toEqual({ rows: 5_000, cells: 10_000, visible: 5_000 });

    // A second load numbers on from the first, and shows its rows after the first's.
    const more = await h.service.invoke(ops.loadRows, bearer, {
      name: TABLE,
      rows: rowsOf(3, 'm'),
    });
    expect(more).toEqual({ table: TABLE, loaded: 3, total_rows: 5_003 });
    expect((await visible(orgId)).slice(-1)).toEqual([{ id: 3, email: 'm3@example.test' }]);
  });

  it('a new organization’s demo rows load inside its creation’s write: all published, no lease left', async () => {
    h = harness();
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    expect(
      h.service.ctx.store.readDb
        .prepare(
          'SELECT visible_rows, loading_id, loading_until FROM data_tables WHERE org_id = ? AND name = ?',
        )
        .get(org.org_id, DEMO_TABLE),
    ).toEqual({ visible_rows: DEMO_ROW_COUNT, loading_id: null, loading_until: null });
  });

  it('two loads into one table at once: the second is refused with 409 and a receipt; the first completes', async () => {
    const { orgId, bearer } = await setup();
    const hold = gate();
    const firstChunk = gate();
    const first = loadRows(h.service.ctx, orgId, TABLE, rowsOf(1_000, 'a'), {
      chunkRows: 100,
      onChunk: async (written) => {
        if (written === 100) {
          firstChunk.open();
          await hold.opened;
        }
      },
    });
    await firstChunk.opened;

    const error = await refusal(
      h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(10, 'b') }),
    );
    expect(error.code).toBe('conflict');
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/a load into `bulk` is in progress; its lease ends at \d{4}-\d\d-\d\dT/);
    const receipt = await h.service.invoke(ops.getProof, undefined, { id: String(error.details.receipt_id) });
    expect(receipt.payload).toMatchObject({
      kind: 'table.load.deny',
      org_id: orgId,
      table: TABLE,
      row_count: 10,
      column: null,
      reason: 'load_in_progress',
    });

    hold.open();
    expect(await first).toEqual({ table: TABLE, loaded: 1_000, total_rows: 1_000 });
    // Once the first has published, the second goes through.
    expect(await h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(10, 'b') })).toEqual({
      table: TABLE,
      loaded: 10,
      total_rows: 1_010,
    });
    expect(stored(orgId)).toEqual({ rows: 1_010, cells: 2_020, visible: 1_010 });
  });

  it('a load that waited past its lease is taken for dead: the next load removes its rows, and it stops without publishing', async () => {
    const { orgId, bearer } = await setup();
    const hold = gate();
    const firstChunk = gate();
    const stale = loadRows(h.service.ctx, orgId, TABLE, rowsOf(500, 'stale'), {
      chunkRows: 100,
      onChunk: async (written) => {
        if (written === 200) {
          firstChunk.open();
          await hold.opened;
        }
      },
    });
    await firstChunk.opened;
    h.clock.advance(LOAD_LEASE_MS + 1_000);

    expect(await h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(50, 'fresh') })).toEqual({
      table: TABLE,
      loaded: 50,
      total_rows: 50,
    });
    hold.open();
    const error = await refusal(stale);
    expect(error.code).toBe('conflict');
    expect(error.message).toMatch(/waited past its lease/);
    const rows = await visible(orgId);
    expect(rows).toHaveLength(50);
    expect(rows.every((row) => String(row.email).startsWith('fresh'))).toBe(true);
    expect(stored(orgId)).toEqual({ rows: 50, cells: 100, visible: 50 });
  });

  it('a failed load removes what it wrote and gives up its lease', async () => {
    const { orgId, bearer } = await setup();
    const error = await refusal(
      loadRows(h.service.ctx, orgId, TABLE, rowsOf(500, 'x'), {
        chunkRows: 100,
        onChunk: (written) => {
          if (written === 300) throw new ServiceError('internal', 'the load was stopped');
        },
      }),
    );
    expect(error.message).toBe('the load was stopped');
    expect(stored(orgId)).toEqual({ rows: 0, cells: 0, visible: 0 });
    expect(await h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(5, 'y') })).toEqual({
      table: TABLE,
      loaded: 5,
      total_rows: 5,
    });
  });
});

describe('a loader in another process', () => {
  it('killed after its first chunk commits: nothing is visible, a load meanwhile gets 409, and once the lease has run out the next load removes the dead rows and succeeds', async () => {
    const { orgId, bearer } = await setup();
    await h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(7, 'before') });
    const worker = startWorker(orgId, 1_000, { SVC_LOAD_CHUNK: '100', SVC_LOAD_STEP: '1' });
    await waitForOutput(worker, 'stdout', 'chunk 100\n', 30_000);
    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');

    // The dead load's chunk is in the file, but no read sees it.
    expect(stored(orgId)).toEqual({ rows: 107, cells: 214, visible: 7 });
    expect(await visible(orgId)).toHaveLength(7);

    // Its lease has not run out yet: the table is still taken.
    const error = await refusal(
      h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(3, 'after') }),
    );
    expect(error.code).toBe('conflict');
    expect(stored(orgId)).toEqual({ rows: 107, cells: 214, visible: 7 });

    // The worker set its lease by the real clock; this service's clock moves past it.
    h.clock.advance(2 * LOAD_LEASE_MS);
    expect(await h.service.invoke(ops.loadRows, bearer, { name: TABLE, rows: rowsOf(3, 'after') })).toEqual({
      table: TABLE,
      loaded: 3,
      total_rows: 10,
    });
    expect(stored(orgId)).toEqual({ rows: 10, cells: 20, visible: 10 });
    const rows = await visible(orgId);
    expect(rows.map((row) => row.email)).toEqual([
      ...Array.from({ length: 7 }, (_, i) => `before${i + 1}@example.test`),
      'after1@example.test',
      'after2@example.test',
      'after3@example.test',
    ]);
  });

  it('loading 20,000 rows: a write from this process commits between its chunks, long before it publishes', async () => {
    const { orgId, bearer } = await setup();
    const grant = await h.service.invoke(ops.createGrant, bearer, { agent: 'Planner', columns: ['id'] });
    const worker = startWorker(orgId, 20_000);
    // Default chunks: 750 records, 250 rows of this table (two sealed columns), 80 chunks.
    const chunk = 250;
    await waitForOutput(worker, 'stdout', 'chunk ', 30_000);
    const before = stored(orgId).rows;

    // A compute with receipt, and, inside the same transaction, what the loader had committed:
    // exactly the state when this write held the lock.
    const { receipt, during } = await h.service.ctx.store.write(async () => {
      const decision = await h.service.invoke(ops.computeDecision, `Bearer ${grant.grant_token}`, {
        action: 'read',
        columns: ['id'],
        receipt: 'true',
      });
      const state = (await h.service.ctx.store.get<{ top: number; visible: number }>(
        `SELECT (SELECT COALESCE(MAX(row_no), 0) FROM data_rows WHERE org_id = ?1 AND table_name = ?2) AS top,
                (SELECT visible_rows FROM data_tables WHERE org_id = ?1 AND name = ?2) AS visible`,
        orgId,
        TABLE,
      ))!;
      return { receipt: decision.receipt, during: state };
    });
    expect(receipt?.receipt_id).toMatch(/^rcpt_/);
    // Committed while the load was in progress: nothing published, not all rows written...
    expect(during.visible).toBe(0);
    expect(during.top).toBeLessThan(20_000);
    // ...and within a few of the loader's 80 chunks of asking: the loader let go of the lock
    // after each chunk, rather than once at the end.
    expect((during.top - before) / chunk).toBeLessThanOrEqual(10);

    await waitForOutput(worker, 'stdout', 'published ', 120_000);
    expect((await worker.exited).code).toBe(0);
    expect(stored(orgId)).toEqual({ rows: 20_000, cells: 40_000, visible: 20_000 });
  });
});

describe('the schema', () => {
  it('migration 009 makes every row already loaded visible', () => {
    const home = tempDir();
    try {
      const file = join(home.dir, 'svc.db');
      // A store as the version before wrote it: two tables, one with rows.
      const old = storeBefore(file, 9);
      old.exec("INSERT INTO data_tables VALUES ('org_1', 'full', 'then'), ('org_1', 'empty', 'then')");
      for (let row = 1; row <= 3; row++) {
        old.prepare("INSERT INTO data_rows VALUES ('org_1', 'full', ?, '{}')").run(row);
      }
      old.close();

      const store = new Store(file);
      try {
        expect(
          store.db.prepare('SELECT name, visible_rows, loading_id FROM data_tables ORDER BY name').all(),
        ).toEqual([
          { name: 'empty', visible_rows: 0, loading_id: null },
          { name: 'full', visible_rows: 3, loading_id: null },
        ]);
      } finally {
        store.close();
      }
    } finally {
      home.cleanup();
    }
  });

  it('removing a row looks its cells up by index, not by reading every cell of the table', async () => {
    h = harness();
    // The plan of the foreign-key check that removing data_rows records runs on data_cells.
    const plan = h.service.ctx.store.db
      .prepare(
        'EXPLAIN QUERY PLAN DELETE FROM data_rows WHERE org_id = ? AND table_name = ? AND row_no > ? AND row_no <= ?',
      )
      .all('org', TABLE, 0, 10)
      .map((step) => String(step.detail));
    expect(plan.filter((detail) => detail.includes('data_cells'))).toEqual([
      expect.stringMatching(
        /USING (COVERING )?INDEX data_cells_row \(org_id=\? AND table_name=\? AND row_no=\?\)/,
      ),
    ]);
  });
});
