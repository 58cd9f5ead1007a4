// Registered tables: columns with a classification and a storage kind, rows whose sensitive
// columns are sealed at rest with a per-column AES-256-GCM key. Denied columns are never opened.
import type { KeyObject } from 'node:crypto';
import { deriveKey } from '../vault/derive.ts';
import { VaultError } from '../vault/key-vault.ts';
import { seal, unseal } from '../vault/seal.ts';
import { ServiceError } from './errors.ts';
import { nowIso, type Context } from './context.ts';
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

/** Loads rows: every value is checked against the registered columns before anything is written. */
export async function loadRows(
  ctx: Context,
  orgId: string,
  tableName: string,
  rows: Record<string, unknown>[],
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
  return ctx.store.write(async () => {
    let next =
      (await ctx.store.get<{ n: number }>(
        'SELECT COALESCE(MAX(row_no), 0) AS n FROM data_rows WHERE org_id = ? AND table_name = ?',
        orgId,
        tableName,
      ))!.n + 1;
    for (const row of rows) {
      const plain: Record<string, CellValue> = {};
      for (const column of table.columns) {
        if (column.storage === 'plaintext') plain[column.name] = (row[column.name] ?? null) as CellValue;
      }
      await ctx.store.run(
        'INSERT INTO data_rows (org_id, table_name, row_no, plain) VALUES (?, ?, ?, ?)',
        orgId,
        tableName,
        next,
        JSON.stringify(plain),
      );
      for (const column of table.columns) {
        if (column.storage !== 'encrypted') continue;
        await ctx.store.run(
          'INSERT INTO data_cells (org_id, table_name, column_name, row_no, sealed) VALUES (?, ?, ?, ?, ?)',
          orgId,
          tableName,
          column.name,
          next,
          sealCell(ctx, orgId, tableName, column.name, next, (row[column.name] ?? null) as CellValue),
        );
      }
      next++;
    }
    return { table: tableName, loaded: rows.length, total_rows: next - 1 };
  });
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
  const byName = columnsByName(table);
  const clauses: string[] = [];
  const params: (string | number | null)[] = [orgId, table.name];
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
  params.push(limit);
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
  const sql = `SELECT r.row_no${picks.map((p) => `, ${p}`).join('')} FROM data_rows r${joins.join('')}
    WHERE r.org_id = ? AND r.table_name = ?${clauses.map((c) => ` AND ${c}`).join('')} ORDER BY r.row_no LIMIT ?`;
  const rows = await ctx.store.all<Record<string, string | number | null>>(
    sql,
    ...pickParams,
    ...joinParams,
    ...params,
  );
  return rows.map((row) => {
    const out: Record<string, CellValue> = {};
    columns.forEach((name, i) => {
      const cell = row[`c${i}`] as string | null;
      out[name] =
        byName.get(name)!.storage === 'plaintext'
          ? cell === null
            ? null
            : (JSON.parse(cell) as CellValue)
          : openCell(ctx, orgId, table.name, name, row.row_no as number, cell ?? undefined);
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
  ctx: Context,
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
  const key = columnKey(ctx, orgId, table, column);
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
