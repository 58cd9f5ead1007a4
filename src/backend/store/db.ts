// The embedded store: node:sqlite in WAL mode, numbered migrations, and one async write path that
// batches concurrent writes into one transaction and never blocks the event loop while another
// process holds the write lock.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { ServiceError } from '../errors.ts';
import { ensurePrivateFile } from '../../config/paths.ts';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
/** How long opening a store may wait for another process's lock (start-up only, before serving). */
const OPEN_BUSY_TIMEOUT_MS = 10_000;
/** How long a write waits for the lock before it is refused as busy (503). */
const WRITE_LOCK_DEADLINE_MS = 30_000;
/** The first and longest pause between two tries for the lock: short, since a waiting write is latency. */
const LOCK_RETRY_FIRST_MS = 1;
const LOCK_RETRY_MAX_MS = 8;
/** Writes committed together at most: a bound on how long one commit keeps the others waiting. */
const BATCH_MAX = 256;
/**
 * Commits after which this process starts a thread that copies the log back into the file between
 * commits (checkpointer.ts): a store that keeps writing (a server, a load) gains from it; a command
 * that writes a few rows and exits never starts the thread.
 */
const CHECKPOINTER_AFTER_COMMITS = 200;
/**
 * How often that thread copies the log back: the checkpoint at a commit finds only what the last
 * 20 ms wrote left to copy (with sixteen receipts a commit, the log grows by about 7,000 pages a
 * second).
 */
const CHECKPOINT_INTERVAL_MS = 20;
const CHECKPOINTER = new URL('./checkpointer.ts', import.meta.url);
/** Prepared statements kept per connection; queries built from request shapes cannot grow it past this. */
const STATEMENT_CACHE_SIZE = 256;

export type SqlValue = string | number | bigint | null | Uint8Array;
export type Row = Record<string, SqlValue>;

export interface StoreOptions {
  /** `full` makes every commit survive power loss; `normal` (default) survives a process crash. */
  synchronous?: 'normal' | 'full';
}

/** What the core asks of a store: async, so that a store over a network database can implement it. */
export interface Queries {
  get<T = Row>(sql: string, ...params: SqlValue[]): Promise<T | undefined>;
  all<T = Row>(sql: string, ...params: SqlValue[]): Promise<T[]>;
  /** Like `all`, each row an array of its values in the select's order: no object per row. */
  allArrays(sql: string, ...params: SqlValue[]): Promise<SqlValue[][]>;
  run(sql: string, ...params: SqlValue[]): Promise<{ changes: number; lastInsertRowid: number }>;
  /**
   * Adds `amount` to a counter: `sql` is an upsert taking `key`'s values then the amount. A store may
   * add it later, but in the same transaction as the write it is part of (see `Store`).
   */
  addToCounter(sql: string, key: SqlValue[], amount?: number): Promise<void>;
}

/** Counter updates not yet run, one per counter row: see `addToCounter`. */
type Counters = Map<string, { sql: string; key: SqlValue[]; amount: number }>;

/** What one write has added to counters, kept until its batch commits. */
interface WriteScope {
  counters: Counters;
}

function addTo(counters: Counters, id: string, sql: string, key: SqlValue[], amount: number): void {
  const counter = counters.get(id);
  if (counter) counter.amount += amount;
  else counters.set(id, { sql, key, amount });
}

interface QueuedWrite {
  work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How much of the database file is read through a memory map (SQLite caps it at its build's limit). */
const MMAP_BYTES = 256 * 1024 * 1024;

/** One connection with its statement cache. */
class Connection {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  /** The same SQL prepared again to answer rows as arrays (a statement answers one way or the other). */
  private readonly arrayStatements = new Map<string, StatementSync>();

  constructor(file: string, busyTimeoutMs: number, synchronous: 'NORMAL' | 'FULL') {
    this.db = new DatabaseSync(file, { timeout: busyTimeoutMs });
    this.db.exec(`PRAGMA synchronous = ${synchronous}`);
    this.db.exec('PRAGMA foreign_keys = ON');
    // Pages of the database file are read from a memory map, not by a read call each: a reader's
    // page cache is dropped at every commit of another connection, and under load each request's
    // token lookup read its pages again (about 15% more compute answers a second over HTTP).
    this.db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  }

  statement(sql: string): StatementSync {
    return this.cached(this.statements, sql, false);
  }

  arrayStatement(sql: string): StatementSync {
    return this.cached(this.arrayStatements, sql, true);
  }

  private cached(cache: Map<string, StatementSync>, sql: string, arrays: boolean): StatementSync {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (arrays) stmt.setReturnArrays(true);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, stmt);
    }
    return stmt;
  }

  busyTimeout(ms: number): void {
    this.db.exec(`PRAGMA busy_timeout = ${ms}`);
  }

  close(): void {
    this.statements.clear();
    this.arrayStatements.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/**
 * Two connections to one file. Reads outside a write go to the reader: in WAL mode they see the
 * last commit and never wait for the write lock. Writes go through `write`: queued, then run one
 * after another in a single transaction, each in a savepoint of its own, and committed together.
 * Waiting for another process's lock is a timer, never a busy wait on this thread.
 */
export class Store implements Queries {
  readonly file: string;
  private readonly writer: Connection;
  private readonly reader: Connection;
  /** Set while a write's work runs: its queries see its own changes, and nested writes join it. */
  private readonly inWrite = new AsyncLocalStorage<WriteScope>();
  private queue: QueuedWrite[] = [];
  private flushing = false;
  private closed = false;
  /** Changes whenever what the open transaction holds may have been undone: see `writeEpoch`. */
  private epoch = 0;
  /** Whether start-up is over: the lock is then waited for on a timer, not by SQLite's busy handler. */
  private serving = false;
  private commits = 0;
  /** Whether a batch of writes is open on the writer: reads outside it then go to the reader. */
  private batchOpen = false;
  /** The connection holding this turn's shared read transaction, if any (see `holdSnapshot`). */
  private snapshotOn: Connection | undefined;
  private releaseQueued = false;
  private checkpointer: Worker | undefined;

  constructor(file: string, options: StoreOptions = {}) {
    this.file = file;
    // SQLite gives the -wal and -shm files the database file's mode: a private database keeps
    // them private too. One made earlier with the default umask (0644) is tightened.
    ensurePrivateFile(file, { create: true });
    for (const companion of [`${file}-wal`, `${file}-shm`]) ensurePrivateFile(companion, { create: false });
    const synchronous = options.synchronous === 'full' ? 'FULL' : 'NORMAL';
    // Opening may wait for another process (a migration, a first key) before this one serves.
    this.writer = new Connection(file, OPEN_BUSY_TIMEOUT_MS, synchronous);
    this.writer.db.exec('PRAGMA journal_mode = WAL');
    this.migrate();
    this.reader = new Connection(file, 0, synchronous);
  }

  /** The write connection, for tests and tools that inspect the file directly. */
  get db(): DatabaseSync {
    this.releaseSnapshot();
    return this.writer.db;
  }

  /** Reads without waiting for any lock (outside a write), for long walks such as verifying a chain. */
  get readDb(): DatabaseSync {
    // Its statements run on their own: outside the turn's shared read transaction.
    this.releaseSnapshot();
    return this.reader.db;
  }

  /**
   * Inside a write, a number that stays the same for as long as nothing this transaction wrote
   * can have been undone (it changes at every BEGIN and every rollback); outside, undefined. Lets
   * a caller keep what it read inside the transaction, such as a chain's head, between writes of
   * one batch.
   */
  writeEpoch(): number | undefined {
    return this.inWrite.getStore() ? this.epoch : undefined;
  }

  /**
   * Inside a write: the writer, to see the write's own changes. Outside: the writer too while no
   * batch is open on it (its page cache stays warm across this process's own commits, where the
   * reader's is dropped at every one of them); the reader while a batch is open, so that a read
   * never sees another write's changes before their commit.
   */
  private connection(): Connection {
    if (this.inWrite.getStore()) return this.writer;
    const connection = this.batchOpen ? this.reader : this.writer;
    if (this.snapshotOn !== connection) this.holdSnapshot(connection);
    return connection;
  }

  /**
   * The reads of one turn of the event loop share one read transaction: a read of its own took and
   * dropped the log's read lock (two system calls), a third of what a token lookup cost with
   * sixteen callers. It ends with the turn and before each batch of this process's writes begins,
   * so a read sees every commit of this process before it (a read while the next batch is open
   * starts afresh), and another process's from before the turn.
   */
  private holdSnapshot(connection: Connection): void {
    this.releaseSnapshot();
    connection.statement('BEGIN').run();
    this.snapshotOn = connection;
    if (!this.releaseQueued) {
      this.releaseQueued = true;
      setImmediate(() => {
        this.releaseQueued = false;
        this.releaseSnapshot();
      });
    }
  }

  private releaseSnapshot(): void {
    const connection = this.snapshotOn;
    if (!connection) return;
    this.snapshotOn = undefined;
    if (!this.closed && connection.db.isTransaction) connection.statement('COMMIT').run();
  }

  async get<T = Row>(sql: string, ...params: SqlValue[]): Promise<T | undefined> {
    return this.read(
      () =>
        this.connection()
          .statement(sql)
          .get(...params) as T | undefined,
    );
  }

  async all<T = Row>(sql: string, ...params: SqlValue[]): Promise<T[]> {
    return this.read(
      () =>
        this.connection()
          .statement(sql)
          .all(...params) as T[],
    );
  }

  async allArrays(sql: string, ...params: SqlValue[]): Promise<SqlValue[][]> {
    return this.read(
      () =>
        this.connection()
          .arrayStatement(sql)
          .all(...params) as unknown as SqlValue[][],
    );
  }

  /**
   * A read in WAL mode waits for no lock, except for a moment while another process recovers or
   * checkpoints the log: then it is retried on a timer, never by blocking this thread.
   */
  private async read<T>(query: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return query();
      } catch (error) {
        if (!isBusy(error) || attempt >= 200) throw isBusy(error) ? busyError() : error;
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MAX_MS));
      }
    }
  }

  /** A change outside a write becomes a write of its own. */
  async run(sql: string, ...params: SqlValue[]): Promise<{ changes: number; lastInsertRowid: number }> {
    if (!this.inWrite.getStore()) return this.write(() => this.run(sql, ...params));
    const result = this.writer.statement(sql).run(...params);
    return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
  }

  /**
   * Adds to a counter row once per batch, just before its commit, rather than an update per write:
   * sixteen computes committed together each counted a decision in the same row, an eighth of
   * their cost besides the signatures. What a write added is dropped if the write fails. A read
   * inside the batch does not see it; nothing that decides reads a counter.
   */
  async addToCounter(sql: string, key: SqlValue[], amount = 1): Promise<void> {
    const scope = this.inWrite.getStore();
    if (!scope) return this.write(() => this.addToCounter(sql, key, amount));
    addTo(scope.counters, JSON.stringify([sql, key]), sql, key, amount);
  }

  /** Runs the counter updates the batch's writes left, in the open transaction. */
  private addCounters(scopes: WriteScope[]): void {
    const total: Counters = new Map();
    for (const scope of scopes) {
      for (const [id, { sql, key, amount }] of scope.counters) addTo(total, id, sql, key, amount);
    }
    for (const { sql, key, amount } of total.values()) this.writer.statement(sql).run(...key, amount);
  }

  /**
   * Runs `work` in a write transaction and resolves once it is committed. A write inside another
   * joins it. Concurrent writes share one transaction and one commit; each has a savepoint, so one
   * that fails is rolled back alone and the others still commit.
   */
  write<T>(work: () => T | Promise<T>): Promise<Awaited<T>> {
    if (this.inWrite.getStore()) return (async () => work())() as Promise<Awaited<T>>;
    if (this.closed) return Promise.reject(new ServiceError('busy', 'the store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // After this turn's I/O callbacks, so that requests arriving together commit together.
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** The synchronous kind of the same thing, for start-up only (migrations, first keys). */
  writeAtStartup<T>(work: () => T): T {
    this.releaseSnapshot();
    this.writer.statement('BEGIN IMMEDIATE').run();
    this.epoch++;
    try {
      const scope: WriteScope = { counters: new Map() };
      const result = this.inWrite.run(scope, work);
      this.addCounters([scope]);
      this.writer.statement('COMMIT').run();
      return result;
    } catch (error) {
      if (this.writer.db.isTransaction) this.writer.statement('ROLLBACK').run();
      throw error;
    }
  }

  /** A synchronous read for start-up checks, before anything is served. */
  getAtStartup<T = Row>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.writer.statement(sql).get(...params) as T | undefined;
  }

  runAtStartup(sql: string, ...params: SqlValue[]): void {
    this.releaseSnapshot();
    this.writer.statement(sql).run(...params);
  }

  close(): void {
    this.releaseSnapshot();
    this.closed = true;
    for (const queued of this.queue.splice(0)) queued.reject(new ServiceError('busy', 'the store is closed'));
    this.checkpointer?.postMessage('close');
    this.checkpointer = undefined;
    this.writer.close();
    this.reader.close();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length && !this.closed) {
        if (!(await this.acquireLock())) return;
        await this.runBatch();
      }
    } finally {
      this.flushing = false;
      if (this.queue.length && !this.closed) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    }
  }

  /** Takes the write lock, waiting on a timer while another process holds it. */
  private async acquireLock(): Promise<boolean> {
    // From now on a busy lock answers at once, and this loop does the waiting.
    if (!this.serving) {
      this.writer.busyTimeout(0);
      this.serving = true;
    }
    const deadline = Date.now() + WRITE_LOCK_DEADLINE_MS;
    let pause = LOCK_RETRY_FIRST_MS;
    for (;;) {
      if (this.closed) return false;
      try {
        // The writer cannot begin a write inside the turn's read; the reader's, begun before
        // the last commit, would not see it.
        this.releaseSnapshot();
        this.writer.statement('BEGIN IMMEDIATE').run();
        this.batchOpen = true;
        this.epoch++;
        return true;
      } catch (error) {
        if (!isBusy(error)) {
          for (const queued of this.queue.splice(0)) queued.reject(error);
          return false;
        }
      }
      if (Date.now() >= deadline) {
        const busy = busyError();
        for (const queued of this.queue.splice(0)) queued.reject(busy);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS);
    }
  }

  /** Runs queued writes in the open transaction, each in its own savepoint, then commits them all. */
  private async runBatch(): Promise<void> {
    const done: { queued: QueuedWrite; value: unknown }[] = [];
    const scopes: WriteScope[] = [];
    while (this.queue.length && done.length < BATCH_MAX) {
      const queued = this.queue.shift()!;
      this.writer.statement('SAVEPOINT write').run();
      const scope: WriteScope = { counters: new Map() };
      try {
        const value = await this.inWrite.run(scope, queued.work);
        this.writer.statement('RELEASE write').run();
        done.push({ queued, value });
        scopes.push(scope);
      } catch (error) {
        this.writer.statement('ROLLBACK TO write').run();
        this.epoch++;
        this.writer.statement('RELEASE write').run();
        queued.reject(error);
      }
    }
    try {
      this.addCounters(scopes);
      this.writer.statement('COMMIT').run();
    } catch (error) {
      if (this.writer.db.isTransaction) this.writer.statement('ROLLBACK').run();
      for (const { queued } of done) queued.reject(error);
      return;
    } finally {
      this.batchOpen = false;
    }
    for (const { queued, value } of done) queued.resolve(value);
    if (++this.commits === CHECKPOINTER_AFTER_COMMITS) void this.startCheckpointer();
  }

  /**
   * Starts the thread that copies the log back between commits (checkpointer.ts). SQLite still
   * checkpoints at the commit that takes the log past 1,000 pages, but finds most of it copied
   * already; and only a checkpoint at a commit, with no commit after it, lets the next write start
   * the log over from its beginning (a thread that kept up alone let it grow without end).
   */
  private async startCheckpointer(): Promise<void> {
    // Loaded here, not with the store: node:worker_threads adds 1.5 ms to every process's start.
    const { Worker } = await import('node:worker_threads');
    if (this.closed) return;
    const worker = new Worker(CHECKPOINTER, {
      workerData: { file: this.file, intervalMs: CHECKPOINT_INTERVAL_MS },
    });
    // It never keeps the process alive: a process that is done exits, and the log is copied later.
    worker.unref();
    // A thread that stops takes nothing with it: the commits' own checkpoints go on as before.
    worker.on('error', () => undefined);
    this.checkpointer = worker;
  }

  /**
   * Applies the migrations this file lacks, all in one transaction, and records the version in
   * `user_version`: a store that is up to date is opened without taking the write lock.
   */
  private migrate(): void {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((name) => /^\d+_.+\.sql$/.test(name))
      .sort();
    const latest = Math.max(...files.map((name) => Number.parseInt(name, 10)));
    // Up to date when it is at the latest version and holds as many migrations as there are: a
    // migration numbered below the latest one that came later (two lines of work merged) still runs.
    if (this.userVersion() >= latest && this.migrationsApplied() === files.length) return;
    this.writeAtStartup(() => {
      // Checked again under the lock: another process may have migrated a moment ago.
      this.writer.db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)',
      );
      const applied = new Set(
        (this.writer.statement('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
          (row) => row.version,
        ),
      );
      for (const name of files) {
        const version = Number.parseInt(name, 10);
        if (applied.has(version)) continue;
        this.writer.db.exec(readFileSync(fileURLToPath(new URL(name, MIGRATIONS_DIR)), 'utf8'));
        this.writer
          .statement('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)')
          .run(version, new Date().toISOString());
      }
      this.writer.db.exec(`PRAGMA user_version = ${latest}`);
    });
  }

  private migrationsApplied(): number {
    return (this.writer.db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n;
  }

  private userVersion(): number {
    return (this.writer.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  }
}

function busyError(): ServiceError {
  return new ServiceError('busy', 'the store stayed locked by other svc processes; retry shortly');
}

function isBusy(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /SQLITE_BUSY|database is locked|database is busy/i.test(text);
}
