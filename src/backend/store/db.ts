// The embedded store: node:sqlite in WAL mode, numbered migrations, and write transactions
// that several processes can run against one data dir at once.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../errors.ts';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const BUSY_TIMEOUT_MS = 10_000;
/** Retries after SQLite has already waited BUSY_TIMEOUT_MS: past them the caller gets a 503. */
const BUSY_RETRIES = 2;
/** Prepared statements kept per process; queries built from request shapes cannot grow it past this. */
const STATEMENT_CACHE_SIZE = 256;

export type SqlValue = string | number | bigint | null | Uint8Array;
export type Row = Record<string, SqlValue>;

export interface StoreOptions {
  /** `full` makes every commit survive power loss; `normal` (default) survives a process crash. */
  synchronous?: 'normal' | 'full';
}

export class Store {
  readonly db: DatabaseSync;
  readonly file: string;
  private readonly statements = new Map<string, StatementSync>();
  private depth = 0;

  constructor(file: string, options: StoreOptions = {}) {
    this.file = file;
    this.db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
    this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.retryBusy(() => this.db.exec('PRAGMA journal_mode = WAL'));
    this.db.exec(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.exec('PRAGMA foreign_keys = ON');
    this.migrate();
  }

  /** A cached prepared statement: the hot paths prepare once per process. */
  statement(sql: string): StatementSync {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        this.statements.delete(this.statements.keys().next().value!);
      }
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  get<T = Row>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  all<T = Row>(sql: string, ...params: SqlValue[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  run(sql: string, ...params: SqlValue[]): { changes: number; lastInsertRowid: number } {
    const result = this.statement(sql).run(...params);
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  }

  /**
   * Runs `work` in one write transaction. BEGIN IMMEDIATE takes the write lock up front, so two
   * processes appending to a chain never both read the same head. Nested calls join the outer one.
   */
  transaction<T>(work: () => T): T {
    if (this.depth > 0) return work();
    return this.retryBusy(() => {
      this.statement('BEGIN IMMEDIATE').run();
      this.depth++;
      try {
        const result = work();
        this.statement('COMMIT').run();
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.statement('ROLLBACK').run();
        throw error;
      } finally {
        this.depth--;
      }
    });
  }

  close(): void {
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
  }

  private retryBusy<T>(work: () => T): T {
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (attempt >= BUSY_RETRIES) {
          throw new ServiceError('busy', 'the store stayed locked by other svc processes; retry shortly');
        }
        sleepSync(5 + Math.random() * 20);
      }
    }
  }

  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)',
    );
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((name) => /^\d+_.+\.sql$/.test(name))
      .sort();
    for (const name of files) {
      const version = Number.parseInt(name, 10);
      this.transaction(() => {
        // Checked inside the write lock: another process may have applied it a moment ago.
        if (this.get('SELECT 1 AS done FROM schema_migrations WHERE version = ?', version)) return;
        this.db.exec(readFileSync(fileURLToPath(new URL(name, MIGRATIONS_DIR)), 'utf8'));
        this.run(
          'INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)',
          version,
          new Date().toISOString(),
        );
      });
    }
  }
}

function isBusy(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /SQLITE_BUSY|database is locked|database is busy/i.test(text);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}
