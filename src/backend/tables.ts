// Registered tables: columns with a classification and a storage kind, rows whose sensitive
// columns are sealed at rest with a per-column AES-256-GCM key. Denied columns are never opened.
import type { KeyObject } from 'node:crypto';
import { deriveKey } from '../vault/derive.ts';
import { VaultError } from '../vault/key-vault.ts';
import { seal, unseal } from '../vault/seal.ts';
import { ServiceError } from './errors.ts';
import { hasPassed, newId, nowIso, type Context } from './context.ts';
import type { WhereValue } from './credentials.ts';

export type Storage = 'plaintext' | 'encrypted';
export type CellValue = string | number | boolean | null;

export interface ColumnSpec {
  name: string;
  classification: string;
  storage: Storage;
}

export interface TableInfo {
  name: string;
  columns: ColumnSpec[];
}

export const DEMO_TABLE = 'agent_demo_records';
export const DEMO_COLUMNS: ColumnSpec[] = [
  { name: 'id', classification: 'public', storage: 'plaintext' },
  { name: 'region', classification: 'public', storage: 'plaintext' },
  { name: 'customer_name', classification: 'pii', storage: 'encrypted' },
  { name: 'email', classification: 'pii', storage: 'encrypted' },
  { name: 'phone', classification: 'pii', storage: 'encrypted' },
  { name: 'balance', classification: 'financial', storage: 'encrypted' },
  { name: 'notes', classification: 'confidential', storage: 'encrypted' },
];
export const DEMO_ROW_COUNT = 240;

const MAX_ROWS_PER_LOAD = 50_000;

const registeredTables = new WeakMap<Context, Map<string, TableInfo>>();

/**
 * A registered table. Registrations are never altered or removed, so a table found once is cached
 * for the life of the process; a miss is not cached, because another process may register it.
 */
export async function getTable(ctx: Context, orgId: string, name: string): Promise<TableInfo | undefined> {
  let cache = registeredTables.get(ctx);
  if (!cache) registeredTables.set(ctx, (cache = new Map()));
  const key = `${orgId}\u0000${name}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const columns = await ctx.store.all<{ name: string; classification: string; storage: Storage }>(
    'SELECT name, classification, storage FROM data_columns WHERE org_id = ? AND table_name = ? ORDER BY position',
    orgId,
    name,
  );
  if (!columns.length) return undefined;
  const table = { name, columns };
  cache.set(key, table);
  return table;
}

const byNameCache = new WeakMap<TableInfo, Map<string, ColumnSpec>>();

/** A table's columns by name, built once per registered table (they never change). */
export function columnsByName(table: TableInfo): Map<string, ColumnSpec> {
  let byName = byNameCache.get(table);
  if (!byName) byNameCache.set(table, (byName = new Map(table.columns.map((c) => [c.name, c]))));
  return byName;
}

export async function listTables(ctx: Context, orgId: string): Promise<TableInfo[]> {
  const rows = await ctx.store.all<{ name: string }>(
    'SELECT name FROM data_tables WHERE org_id = ? ORDER BY name',
    orgId,
  );
  const found: TableInfo[] = [];
  for (const row of rows) found.push((await getTable(ctx, orgId, row.name))!);
  return found;
}

/**
 * Receipts a refused request on the organization's tables, in a write of its own so it commits
 * although the request then fails. (This module sits below governance.ts, whose `receiptRefusals`
 * does the same for the others.) The operations hand these functions only the organization, so the
 * receipt names no key.
 */
async function receiptRefusal(
  ctx: Context,
  orgId: string,
  kind: string,
  body: Record<string, unknown>,
): Promise<string> {
  const receipt = await ctx.chains.append('service', {
    kind,
    org_id: orgId,
    signed_at: nowIso(ctx),
    body: { org_id: orgId, ...body },
  });
  return receipt.receipt_id;
}

export async function registerTable(ctx: Context, orgId: string, table: TableInfo): Promise<TableInfo> {
  const names = table.columns.map((c) => c.name);
  if (new Set(names).size !== names.length) {
    throw new ServiceError('invalid_request', 'column names must be unique within a table');
  }
  const registered = await ctx.store.write(async () => {
    if (
      await ctx.store.get('SELECT 1 AS x FROM data_tables WHERE org_id = ? AND name = ?', orgId, table.name)
    ) {
      return false;
    }
    await ctx.store.run(
      'INSERT INTO data_tables (org_id, name, created_at) VALUES (?, ?, ?)',
      orgId,
      table.name,
      nowIso(ctx),
    );
    for (const [position, column] of table.columns.entries()) {
      await ctx.store.run(
        'INSERT INTO data_columns (org_id, table_name, name, position, classification, storage) VALUES (?, ?, ?, ?, ?, ?)',
        orgId,
        table.name,
        column.name,
        position,
        column.classification,
        column.storage,
      );
    }
    return true;
  });
  if (!registered) {
    // An attempt to redefine a table (its classifications, say) is refused and receipted.
    const receipt_id = await receiptRefusal(ctx, orgId, 'table.register.deny', {
      table: table.name,
      columns: table.columns,
      reason: 'table_exists',
    });
    throw new ServiceError(
      'table_exists',
      `table \`${table.name}\` is already registered for this organization`,
      { receipt_id },
    );
  }
  return { name: table.name, columns: table.columns };
}

/**
 * Records (a row's `data_rows` record and one `data_cells` record per sealed column) a load writes
 * per transaction. A chunk's transaction holds the write lock, which every other writer (`svc
 * serve` answering a compute with receipt, another CLI command) waits for, and its time grows with
 * the records it inserts: 750 hold it about 5 ms (10 ms at the 99th percentile) on a shared 2-core
 * machine, within the 10 to 20 ms one chunk may take. That is 250 rows of a table with two sealed
 * columns, 125 of the demo table (five). The cells are sealed before the chunk's transaction
 * begins, so sealing adds nothing to it.
 */
export const LOAD_CHUNK_RECORDS = 750;

/**
 * The pause after each chunk. A process waiting for the lock tries again after 1, 2, 4, then
 * every 8 ms (db.ts): were the next chunk to begin at once, the lock would be taken again before
 * that try, and the other process would wait for the whole load. 10 ms outlasts its longest
 * retry, so it finds the lock free and commits between two chunks.
 */
const LOAD_PAUSE_MS = 10;

/**
 * How long a load's lease on its table lasts after its last chunk. Longer than a chunk may wait
 * for the lock (30 s, then 503: db.ts), so a load that is alive but waiting is never taken for a
 * dead one; a load whose process died holds its table this long, then the next load removes what
 * it left.
 */
export const LOAD_LEASE_MS = 60_000;

export interface LoadOptions {
  /** Rows per chunk; unless given, as many as make `LOAD_CHUNK_RECORDS` records. */
  chunkRows?: number;
  /**
   * Called after each chunk commits, with the rows written so far (not yet visible). The load
   * goes on when it returns or its promise resolves.
   */
  onChunk?: (written: number) => void | Promise<void>;
}

/**
 * Loads rows: every value is checked against the registered columns before anything is written.
 * Then the rows are written in chunks, each chunk a transaction of its own, under the table's lease;
 * reads see none of them until the last one is in and one small write makes them all visible.
 */
export async function loadRows(
  ctx: Context,
  orgId: string,
  tableName: string,
  rows: Record<string, unknown>[],
  options: LoadOptions = {},
): Promise<{ table: string; loaded: number; total_rows: number }> {
  const table = await getTable(ctx, orgId, tableName);
  if (!table) {
    const receipt_id = await receiptRefusal(ctx, orgId, 'table.load.deny', {
      table: tableName,
      row_count: rows.length,
      column: null,
      reason: 'unknown_table',
    });
    throw new ServiceError('unknown_table', `no table \`${tableName}\` is registered for this organization`, {
      receipt_id,
    });
  }
  if (rows.length > MAX_ROWS_PER_LOAD) {
    throw new ServiceError('payload_too_large', `at most ${MAX_ROWS_PER_LOAD} rows per load; split the file`);
  }
  const known = new Set(table.columns.map((c) => c.name));
  for (const [index, row] of rows.entries()) {
    for (const [key, value] of Object.entries(row)) {
      // A column the table does not register is refused by the registry: receipted. A value of
      // the wrong type is bad input whatever is registered: not receipted.
      if (!known.has(key)) {
        const receipt_id = await receiptRefusal(ctx, orgId, 'table.load.deny', {
          table: tableName,
          row_count: rows.length,
          column: key,
          reason: 'unknown_column',
        });
        throw new ServiceError(
          'invalid_request',
          `row ${index + 1}: column \`${key}\` is not registered on \`${tableName}\``,
          { receipt_id },
        );
      }
      if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
        throw new ServiceError(
          'invalid_request',
          `row ${index + 1}: \`${key}\` must be a string, number, boolean or null`,
        );
      }
    }
  }

  const sealedColumns = table.columns.filter((c) => c.storage === 'encrypted').length;
  const chunkRows = Math.max(1, Math.floor(options.chunkRows ?? LOAD_CHUNK_RECORDS / (1 + sealedColumns)));
  // Inside another write (a new organization's demo rows) every chunk joins that one transaction:
  // the lock is held throughout anyway, so a pause would only hold it longer.
  const nested = ctx.store.writeEpoch() !== undefined;
  const lease = await takeLease(ctx, orgId, tableName);
  if ('heldUntil' in lease) {
    const receipt_id = await receiptRefusal(ctx, orgId, 'table.load.deny', {
      table: tableName,
      row_count: rows.length,
      column: null,
      reason: 'load_in_progress',
    });
    throw new ServiceError(
      'conflict',
      `a load into \`${tableName}\` is in progress; its lease ends at ${lease.heldUntil}, extended with every chunk it writes: retry once it is done, or after that time if it has stopped`,
      { receipt_id, lease_until: lease.heldUntil },
    );
  }
  const { id, visible } = lease;
  try {
    if (lease.top > visible)
      await removeUnpublished(ctx, orgId, tableName, id, visible, lease.top, chunkRows);
    let written = 0;
    let prepared = prepareChunk(ctx, orgId, table, rows.slice(0, chunkRows), visible + 1);
    while (prepared.length) {
      const chunk = prepared;
      await ctx.store.write(async () => {
        await renewLease(ctx, orgId, tableName, id);
        for (const row of chunk) {
          await ctx.store.run(
            'INSERT INTO data_rows (org_id, table_name, row_no, plain) VALUES (?, ?, ?, ?)',
            orgId,
            tableName,
            row.rowNo,
            row.plain,
          );
          for (const [column, sealed] of row.cells) {
            await ctx.store.run(
              'INSERT INTO data_cells (org_id, table_name, column_name, row_no, sealed) VALUES (?, ?, ?, ?, ?)',
              orgId,
              tableName,
              column,
              row.rowNo,
              sealed,
            );
          }
        }
      });
      written += chunk.length;
      await options.onChunk?.(written);
      const next = rows.slice(written, written + chunkRows);
      if (nested || !next.length) {
        prepared = prepareChunk(ctx, orgId, table, next, visible + written + 1);
      } else {
        // Sealing the next chunk runs during the pause: the lock is free all the while.
        const paused = pause(LOAD_PAUSE_MS);
        prepared = prepareChunk(ctx, orgId, table, next, visible + written + 1);
        await paused;
      }
    }
    const total = visible + written;
    await ctx.store.write(async () => {
      await renewLease(ctx, orgId, tableName, id);
      await ctx.store.run(
        'UPDATE data_tables SET visible_rows = ?, loading_id = NULL, loading_until = NULL WHERE org_id = ? AND name = ?',
        total,
        orgId,
        tableName,
      );
    });
    return { table: tableName, loaded: rows.length, total_rows: total };
  } catch (error) {
    // Inside another write, that write's rollback takes every chunk with it. Otherwise the rows
    // written so far are removed now, unless the lock stayed busy (removing them would wait as
    // long again) or the lease was lost (its new holder removes them): then the lease runs out and
    // the next load removes them.
    const lost = error instanceof LeaseLost || (error instanceof ServiceError && error.code === 'busy');
    if (!nested && !lost) {
      await abandon(ctx, orgId, tableName, id, visible, chunkRows).catch(() => undefined);
    }
    throw error;
  }
}

type Lease = { id: string; visible: number; top: number } | { heldUntil: string };

/**
 * Takes the table's lease in a write of its own, unless a live load holds it. A lease that has run
 * out was left by a load that died: its rows are still there, above `visible` up to `top`.
 */
async function takeLease(ctx: Context, orgId: string, tableName: string): Promise<Lease> {
  return ctx.store.write(async () => {
    const held = (await ctx.store.get<{
      visible_rows: number;
      loading_id: string | null;
      loading_until: string | null;
    }>(
      'SELECT visible_rows, loading_id, loading_until FROM data_tables WHERE org_id = ? AND name = ?',
      orgId,
      tableName,
    ))!;
    if (held.loading_id !== null && held.loading_until !== null && !hasPassed(ctx, held.loading_until)) {
      return { heldUntil: held.loading_until };
    }
    const top = (await ctx.store.get<{ n: number }>(
      'SELECT COALESCE(MAX(row_no), 0) AS n FROM data_rows WHERE org_id = ? AND table_name = ?',
      orgId,
      tableName,
    ))!.n;
    const id = newId('load');
    await ctx.store.run(
      'UPDATE data_tables SET loading_id = ?, loading_until = ? WHERE org_id = ? AND name = ?',
      id,
      leaseEnd(ctx),
      orgId,
      tableName,
    );
    return { id, visible: held.visible_rows, top };
  });
}

function leaseEnd(ctx: Context): string {
  return new Date(ctx.clock().getTime() + LOAD_LEASE_MS).toISOString();
}

/**
 * Inside a write: checks that the lease is still this load's and extends it. A load that waited
 * past its lease may have been taken for dead, its rows removed by the next load: it stops here.
 */
async function renewLease(ctx: Context, orgId: string, tableName: string, id: string): Promise<void> {
  const renewed = await ctx.store.run(
    'UPDATE data_tables SET loading_until = ? WHERE org_id = ? AND name = ? AND loading_id = ?',
    leaseEnd(ctx),
    orgId,
    tableName,
    id,
  );
  if (renewed.changes !== 1) throw new LeaseLost(tableName);
}

/** A load that lost its table's lease: what it wrote is the new holder's to remove. */
class LeaseLost extends ServiceError {
  constructor(tableName: string) {
    super(
      'conflict',
      `the load into \`${tableName}\` waited past its lease and another load took the table; none of its rows were published, so load them again`,
    );
  }
}

/**
 * Removes the rows above `visible` up to `top` with their cells, in chunks like a load's, from
 * the top down, renewing the lease with each: they were never visible, so removing them part by
 * part shows nothing to a read.
 */
async function removeUnpublished(
  ctx: Context,
  orgId: string,
  tableName: string,
  id: string,
  visible: number,
  top: number,
  chunkRows: number,
): Promise<void> {
  const nested = ctx.store.writeEpoch() !== undefined;
  for (let high = top; high > visible; high -= chunkRows) {
    const low = Math.max(visible, high - chunkRows);
    if (high < top && !nested) await pause(LOAD_PAUSE_MS);
    await ctx.store.write(async () => {
      await renewLease(ctx, orgId, tableName, id);
      // Cells first: a row is removed only once nothing points at it.
      await ctx.store.run(
        'DELETE FROM data_cells WHERE org_id = ? AND table_name = ? AND row_no > ? AND row_no <= ?',
        orgId,
        tableName,
        low,
        high,
      );
      await ctx.store.run(
        'DELETE FROM data_rows WHERE org_id = ? AND table_name = ? AND row_no > ? AND row_no <= ?',
        orgId,
        tableName,
        low,
        high,
      );
    });
  }
}

/** After a failed load: removes what it wrote, then gives up the lease. */
async function abandon(
  ctx: Context,
  orgId: string,
  tableName: string,
  id: string,
  visible: number,
  chunkRows: number,
): Promise<void> {
  const top = (await ctx.store.get<{ n: number }>(
    'SELECT COALESCE(MAX(row_no), 0) AS n FROM data_rows WHERE org_id = ? AND table_name = ?',
    orgId,
    tableName,
  ))!.n;
  if (top > visible) await removeUnpublished(ctx, orgId, tableName, id, visible, top, chunkRows);
  await ctx.store.run(
    'UPDATE data_tables SET loading_id = NULL, loading_until = NULL WHERE org_id = ? AND name = ? AND loading_id = ?',
    orgId,
    tableName,
    id,
  );
}

interface PreparedRow {
  rowNo: number;
  plain: string;
  cells: [column: string, sealed: string][];
}

/**
 * A chunk's rows as they are stored, numbered from `first`. The lease keeps every other load out
 * of the table, so the numbers are known before the chunk's transaction, and each cell can be
 * sealed, bound to its row number, before the lock is taken.
 */
function prepareChunk(
  ctx: Context,
  orgId: string,
  table: TableInfo,
  rows: Record<string, unknown>[],
  first: number,
): PreparedRow[] {
  return rows.map((row, i) => {
    const rowNo = first + i;
    const plain: Record<string, CellValue> = {};
    const cells: [string, string][] = [];
    for (const column of table.columns) {
      const value = (row[column.name] ?? null) as CellValue;
      if (column.storage === 'plaintext') plain[column.name] = value;
      else cells.push([column.name, sealCell(ctx, orgId, table.name, column.name, rowNo, value)]);
    }
    return { rowNo, plain: JSON.stringify(plain), cells };
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Selects rows matching every equality in `where` (plaintext columns only) and opens only the
 * `columns` asked for: a sealed column not in that list is never decrypted.
 */
export async function selectRows(
  ctx: Context,
  orgId: string,
  table: TableInfo,
  columns: string[],
  where: Record<string, WhereValue>,
  limit: number,
): Promise<Record<string, CellValue>[]> {
  // The limit goes into the statement's text, not a parameter: SQLite re-prepares a statement whose
  // LIMIT is bound at every run (the value may change its plan), which tripled a 10-row read.
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ServiceError('invalid_request', 'limit must be a positive integer', { field: 'limit' });
  }
  const byName = columnsByName(table);
  const clauses: string[] = [];
  const params: (string | number | null)[] = [orgId, table.name, orgId, table.name];
  for (const [name, value] of Object.entries(where).sort(([a], [b]) => a.localeCompare(b))) {
    if (byName.get(name)?.storage !== 'plaintext') {
      throw new ServiceError(
        'invalid_request',
        `where filters registered plaintext columns only; \`${name}\` is not one`,
      );
    }
    const path = `'$.' || json_quote(?)`;
    if (value === null) {
      clauses.push(`json_extract(r.plain, ${path}) IS NULL`);
      params.push(name);
    } else {
      clauses.push(`json_extract(r.plain, ${path}) = ?`);
      params.push(name, typeof value === 'boolean' ? Number(value) : value);
    }
  }
  // Each requested sealed column is one primary-key join: the cells of other columns are never
  // read, let alone decrypted. `->` keeps a plaintext value's JSON type.
  const picks: string[] = [];
  const joins: string[] = [];
  const pickParams: string[] = [];
  const joinParams: string[] = [];
  columns.forEach((name, i) => {
    if (byName.get(name)!.storage === 'plaintext') {
      picks.push(`r.plain -> ? AS c${i}`);
      pickParams.push(`$.${JSON.stringify(name)}`);
    } else {
      picks.push(`s${i}.sealed AS c${i}`);
      joins.push(
        ` LEFT JOIN data_cells s${i} ON s${i}.org_id = r.org_id AND s${i}.table_name = r.table_name AND s${i}.column_name = ? AND s${i}.row_no = r.row_no`,
      );
      joinParams.push(name);
    }
  });
  // Only published rows: those of a load in progress (or of one that died) lie above `visible_rows`.
  // One statement, so the bound and the rows come from the same snapshot.
  const sql = `SELECT r.row_no${picks.map((p) => `, ${p}`).join('')} FROM data_rows r${joins.join('')}
    WHERE r.org_id = ? AND r.table_name = ?
      AND r.row_no <= (SELECT t.visible_rows FROM data_tables t WHERE t.org_id = ? AND t.name = ?)${clauses.map((c) => ` AND ${c}`).join('')} ORDER BY r.row_no LIMIT ${limit}`;
  // Arrays, not an object per row: [row_no, c0, c1, ...].
  const rows = await ctx.store.allArrays(sql, ...pickParams, ...joinParams, ...params);
  // How each column's value is read, settled once per read rather than once per cell: a sealed
  // column's key is looked up once for all its cells (with the first, so no rows need no key).
  const readers = columns.map((name) => {
    if (byName.get(name)!.storage === 'plaintext') {
      return (cell: string | null) => (cell === null ? null : (JSON.parse(cell) as CellValue));
    }
    let key: KeyObject | undefined;
    return (cell: string | null, rowNo: number) =>
      openCell(
        (key ??= columnKey(ctx, orgId, table.name, name)),
        orgId,
        table.name,
        name,
        rowNo,
        cell ?? undefined,
      );
  });
  return rows.map((row) => {
    const out: Record<string, CellValue> = {};
    columns.forEach((name, i) => {
      out[name] = readers[i]!(row[i + 1] as string | null, row[0] as number);
    });
    return out;
  });
}

/**
 * One key per (organization, table, column), derived from the vault's data key: salt the
 * organization, info `svc-column-v1 NUL table NUL column`. derive.ts caches it for the process.
 */
function columnKey(ctx: Context, orgId: string, table: string, column: string): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-column-v1',
    salt: orgId,
    context: [table, column],
  });
}

/** The cell's position is bound as additional data, so a sealed value cannot be moved to another row. */
function cellAad(orgId: string, table: string, column: string, rowNo: number): Buffer {
  return Buffer.from(`${orgId}\u0000${table}\u0000${column}\u0000${rowNo}`);
}

function sealCell(
  ctx: Context,
  orgId: string,
  table: string,
  column: string,
  rowNo: number,
  value: CellValue,
): string {
  return seal(
    columnKey(ctx, orgId, table, column),
    JSON.stringify(value),
    cellAad(orgId, table, column, rowNo),
  );
}

function openCell(
  key: KeyObject,
  orgId: string,
  table: string,
  column: string,
  rowNo: number,
  sealed: string | undefined,
): CellValue {
  // Every load writes a cell for every sealed column (null included): a missing one was removed.
  if (sealed === undefined) {
    throw new ServiceError('internal', `sealed value in ${table}.${column} is missing from row ${rowNo}`);
  }
  let text: string;
  try {
    text = unseal(key, sealed, cellAad(orgId, table, column, rowNo));
  } catch (error) {
    // Fail closed: a cell that does not open is an integrity failure, never a silent null.
    if (error instanceof VaultError && error.code === 'sealed_corrupt') {
      throw new ServiceError('internal', `sealed value in ${table}.${column} failed its integrity check`);
    }
    throw error;
  }
  return JSON.parse(text) as CellValue;
}

/** The synthetic rows every new organization starts with; deterministic so tests can rely on them. */
export function demoRows(count = DEMO_ROW_COUNT): Record<string, CellValue>[] {
  const first = [
    'Ada',
    'Grace',
    'Alan',
    'Edsger',
    'Barbara',
    'Ken',
    'Margaret',
    'Linus',
    'Radia',
    'Donald',
    'Frances',
    'John',
  ];
  const last = [
    'Lovelace',
    'Hopper',
    'Turing',
    'Dijkstra',
    'Liskov',
    'Thompson',
    'Hamilton',
    'Torvalds',
    'Perlman',
    'Knuth',
    'Allen',
    'Backus',
  ];
  const regions = ['eu', 'us', 'apac'];
  const topics = [
    'renewal due next quarter',
    'asked about invoice terms',
    'prefers email contact',
    'escalated a support case',
    'pilot extended',
  ];
  return Array.from({ length: count }, (_, i) => {
    const given = first[i % first.length]!;
    const family = last[(i * 7) % last.length]!;
    return {
      id: i + 1,
      region: regions[i % regions.length]!,
      customer_name: `${given} ${family}`,
      email: `${given}.${family}.${i + 1}@example.test`.toLowerCase(),
      phone: `+1-555-${String(1000 + ((i * 37) % 9000)).padStart(4, '0')}`,
      balance: Math.round(((i * 7919) % 100_000) * 1.37) / 100,
      notes: `Synthetic account ${i + 1}: ${topics[i % topics.length]}.`,
    };
  });
}

export async function seedDemoTable(ctx: Context, orgId: string): Promise<void> {
  await registerTable(ctx, orgId, { name: DEMO_TABLE, columns: DEMO_COLUMNS });
  await loadRows(ctx, orgId, DEMO_TABLE, demoRows());
}
