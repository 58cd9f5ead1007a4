// The store's one write path: concurrent writes share a transaction with a savepoint each, a
// failing write is rolled back alone, nested writes join, reads never see a write before its
// commit, and waiting for another process's lock never stops the event loop.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/backend/store/db.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { storeBefore, tempDir } from '../helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function openStore(): Store {
  const home = tempDir();
  const store = new Store(join(home.dir, 'svc.db'));
  store.db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  cleanups.push(() => {
    store.close();
    home.cleanup();
  });
  return store;
}

/** A whole service on a store of its own, for the chains that append through the store. */
async function openService() {
  const { Service } = await import('../../src/backend/service.ts');
  const home = tempDir();
  const service = new Service({ dataDir: home.dir });
  cleanups.push(() => {
    service.close();
    home.cleanup();
  });
  return service.ctx;
}

const count = async (store: Store) => (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM notes'))!.n;

it('ten concurrent writes, one failing: the nine commit, the failing one leaves nothing and fails alone', async () => {
  const store = openStore();
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) =>
      store.write(async () => {
        await store.run('INSERT INTO notes (id, text) VALUES (?, ?)', i, `note ${i}`);
        if (i === 4) throw new ServiceError('conflict', 'the fifth write refuses');
        return i;
      }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual([
    ...Array(4).fill('fulfilled'),
    'rejected',
    ...Array(5).fill('fulfilled'),
  ]);
  expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
  expect(await count(store)).toBe(9);
  expect(await store.get('SELECT 1 AS x FROM notes WHERE id = 4')).toBeUndefined();
});

it('concurrent writes commit together: one commit for the batch', async () => {
  const store = openStore();
  const probe = new DatabaseSync(store.file);
  cleanups.push(() => probe.close());
  // data_version changes once for every commit made by another connection.
  const version = () => (probe.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
  const before = version();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      store.write(() => store.run('INSERT INTO notes (text) VALUES (?)', `n${i}`)),
    ),
  );
  expect(await count(store)).toBe(20);
  expect(version() - before).toBe(1);
});

it('a write inside a write joins it, and its failure fails the outer one whole', async () => {
  const store = openStore();
  await store.write(async () => {
    await store.run("INSERT INTO notes (text) VALUES ('outer')");
    await store.write(() => store.run("INSERT INTO notes (text) VALUES ('inner')"));
  });
  expect(await count(store)).toBe(2);
  await expect(
    store.write(async () => {
      await store.run("INSERT INTO notes (text) VALUES ('outer 2')");
      await store.write(async () => {
        throw new ServiceError('forbidden', 'inner refuses');
      });
    }),
  ).rejects.toMatchObject({ code: 'forbidden' });
  expect(await count(store)).toBe(2);
});

it('a read outside the write does not see the write before its commit; a read inside it does', async () => {
  const store = openStore();
  let seenInside = -1;
  let inserted!: () => void;
  const afterInsert = new Promise<void>((resolve) => (inserted = resolve));
  let letCommit!: () => void;
  const commitAllowed = new Promise<void>((resolve) => (letCommit = resolve));
  const writing = store.write(async () => {
    await store.run("INSERT INTO notes (text) VALUES ('pending')");
    seenInside = await count(store);
    inserted();
    await commitAllowed;
  });
  await afterInsert;
  const seenOutside = await count(store);
  letCommit();
  await writing;
  expect([seenInside, seenOutside, await count(store)]).toEqual([1, 0, 1]);
});

it('while another process holds the lock, a write waits without stopping the event loop, then commits', async () => {
  const store = openStore();
  const other = new DatabaseSync(store.file);
  cleanups.push(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  let committed = false;
  const writing = store
    .write(() => store.run("INSERT INTO notes (text) VALUES ('queued')"))
    .then(() => {
      committed = true;
    });
  // The event loop keeps turning while the write waits: count turns, then let go of the lock.
  let turns = 0;
  await new Promise<void>((resolve) => {
    const turn = () => {
      turns++;
      if (turns === 50) resolve();
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
  expect(committed).toBe(false);
  expect(await count(store)).toBe(0);
  other.exec('COMMIT');
  await writing;
  expect(committed).toBe(true);
  expect(await count(store)).toBe(1);
});

it("a read sees this process's commit at once, even when the next batch is already open", async () => {
  const store = openStore();
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };
  const [running1, allow1, running2, allow2] = [gate(), gate(), gate(), gate()];
  // One more write than a batch holds: the last one opens a second batch right after the first commits.
  const writes = Array.from({ length: 257 }, (_, i) =>
    store.write(async () => {
      await store.run('INSERT INTO notes (text) VALUES (?)', `note ${i}`);
      if (i === 0) {
        running1.open();
        await allow1.opened;
      }
      if (i === 256) {
        running2.open();
        await allow2.opened;
      }
    }),
  );
  await running1.opened;
  // A read while the first batch is open: it shares a read transaction begun before the commit.
  expect(await count(store)).toBe(0);
  allow1.open();
  await running2.opened;
  // The first batch has committed and the second is open, in the same turn of the event loop.
  expect(await count(store)).toBe(256);
  allow2.open();
  await Promise.all(writes);
  expect(await count(store)).toBe(257);
});

it("another process's commit is seen from the next turn of the event loop on", async () => {
  const store = openStore();
  const other = new DatabaseSync(store.file);
  cleanups.push(() => other.close());
  expect(await count(store)).toBe(0);
  other.exec("INSERT INTO notes (text) VALUES ('from elsewhere')");
  // This turn's reads share one snapshot; the next turn's see the other connection's commit.
  await new Promise((resolve) => setImmediate(resolve));
  expect(await count(store)).toBe(1);
  // The shared read transaction never keeps the other process from writing.
  other.exec("INSERT INTO notes (text) VALUES ('again')");
  await new Promise((resolve) => setImmediate(resolve));
  expect(await count(store)).toBe(2);
});

describe('counters added once per batch', () => {
  const COUNTER =
    'INSERT INTO tallies (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n';
  function withTallies(): Store {
    const store = openStore();
    store.db.exec('CREATE TABLE tallies (name TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    return store;
  }
  const tally = async (store: Store, name: string) =>
    (await store.get<{ n: number }>('SELECT n FROM tallies WHERE name = ?', name))?.n ?? 0;

  it('sums what the writes of one batch add, one update for them all, and drops what a failed write added', async () => {
    const store = withTallies();
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) =>
        store.write(async () => {
          await store.addToCounter(COUNTER, ['decisions']);
          await store.addToCounter(COUNTER, ['weighted'], i);
          await store.run('INSERT INTO notes (text) VALUES (?)', `note ${i}`);
          if (i % 5 === 0) throw new ServiceError('conflict', 'this write refuses');
        }),
      ),
    );
    const failed = results.filter((r) => r.status === 'rejected').length;
    expect(failed).toBe(4);
    expect(await tally(store, 'decisions')).toBe(12);
    // 0 + 1 + ... + 15, less the failed writes' 0, 5, 10 and 15.
    expect(await tally(store, 'weighted')).toBe(120 - 30);
    expect(await count(store)).toBe(12);
  });

  it('adds on its own outside a write, and in a write at start-up', async () => {
    const store = withTallies();
    await store.addToCounter(COUNTER, ['alone'], 3);
    expect(await tally(store, 'alone')).toBe(3);
    store.writeAtStartup(() => void store.addToCounter(COUNTER, ['alone'], 4));
    expect(await tally(store, 'alone')).toBe(7);
  });

  it('fails the whole batch, and adds nothing, when the counter update itself fails', async () => {
    const store = withTallies();
    const broken = 'INSERT INTO tallies (name, n) VALUES (?, ?)';
    await store.addToCounter(broken, ['once'], 1);
    // A second plain insert of the same name breaks the primary key at commit time.
    const results = await Promise.allSettled([
      store.write(() => store.addToCounter(broken, ['once'], 1)),
      store.write(() => store.run("INSERT INTO notes (text) VALUES ('with it')")),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await tally(store, 'once')).toBe(1);
    expect(await count(store)).toBe(0);
  });
});

it('a store that keeps writing has a thread copy its log into the file between commits', async () => {
  const store = openStore();
  for (let i = 0; i < 210; i++) await store.run('INSERT INTO notes (text) VALUES (?)', `note ${i}`);
  const before = statSync(store.file).size;
  // About 200 pages in one commit: with the 210 commits before it, fewer than the 1,000 pages at
  // which a commit checkpoints, so only the thread (started after 200 commits) copies them.
  const text = 'x'.repeat(3000);
  await store.write(async () => {
    for (let i = 0; i < 200; i++) await store.run('INSERT INTO notes (text) VALUES (?)', text);
  });
  await vi.waitFor(() => expect(statSync(store.file).size).toBeGreaterThan(before + 200 * 3000), {
    timeout: 10_000,
  });
  expect(await count(store)).toBe(410);
});

it('a store that keeps writing starts its log over, checkpointing thread or not', async () => {
  const store = openStore();
  const text = 'x'.repeat(3000);
  // 3,000 commits of a page each: a log that never started over would pass 12 MB. One that did
  // stays near 4 MB (1,000 pages), more on a loaded machine, where the thread's checkpoints and
  // the commits' take turns later: 9 MiB still says it started over.
  for (let i = 0; i < 3000; i++) await store.run('INSERT INTO notes (text) VALUES (?)', text);
  expect(statSync(`${store.file}-wal`).size).toBeLessThan(9 * 1024 * 1024);
});

it('a closed store refuses writes with a clear error', async () => {
  const store = openStore();
  store.close();
  await expect(store.write(() => 1)).rejects.toMatchObject({ code: 'busy' });
});

it('appends in one batch keep the chain whole when a write between them is rolled back', async () => {
  const { chains, store } = await openService();
  const entry = (n: number) => ({
    kind: 'test.entry',
    org_id: null,
    signed_at: new Date().toISOString(),
    body: { n },
  });
  const results = await Promise.allSettled([
    store.write(() => chains.append('service', entry(1))),
    store.write(async () => {
      await chains.append('service', entry(2));
      throw new ServiceError('conflict', 'rolled back after appending');
    }),
    store.write(() => chains.append('service', entry(3))),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const [first, , third] = results as PromiseFulfilledResult<{ chain_index: number; receipt_id: string }>[];
  expect([first!.value.chain_index, third!.value.chain_index]).toEqual([1, 2]);
  expect(chains.verifyAll('service')).toMatchObject({ ok: true, length: 2 });
  expect(await chains.check(third!.value.receipt_id)).toMatchObject({ authentic: true, unaltered: true });
});

it('receipts of one batch each answer with the signature their committed row holds', async () => {
  const { chains, store } = await openService();
  const receipts = await Promise.all(
    Array.from({ length: 12 }, (_, n) =>
      chains.append(n % 2 ? 'service' : 'audit', {
        kind: 'test.entry',
        org_id: n % 2 ? null : 'org_test',
        signed_at: new Date().toISOString(),
        body: { n },
      }),
    ),
  );
  for (const receipt of receipts) {
    const table = receipt.chain === 'service' ? 'service_chain' : 'audit_chain';
    const row = await store.get<{ signature_hex: string }>(
      `SELECT signature_hex FROM ${table} WHERE chain_index = ?`,
      receipt.chain_index,
    );
    expect(receipt.signature_hex).toMatch(/^[0-9a-f]{128}$/);
    expect(row!.signature_hex).toBe(receipt.signature_hex);
    expect(await chains.check(receipt.receipt_id)).toMatchObject({ authentic: true, unaltered: true });
  }
  expect(chains.verifyAll('service')).toMatchObject({ ok: true, length: 6 });
  expect(chains.verifyAll('audit')).toMatchObject({ ok: true, length: 6 });
});

it('runs a migration numbered below the latest that a store lacks (two lines of work merged)', () => {
  const home = tempDir();
  cleanups.push(() => home.cleanup());
  const file = join(home.dir, 'svc.db');
  new Store(file).close();
  // A store made where migration 016 did not exist yet: at the latest version, without 016's tables.
  const db = new DatabaseSync(file);
  db.exec('DROP TABLE scan_feedback; DROP TABLE scan_findings; DROP TABLE scans');
  db.exec('DELETE FROM schema_migrations WHERE version = 16');
  db.close();
  const store = new Store(file);
  cleanups.unshift(() => store.close());
  expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'scans'").get()).toBeDefined();
});

it('allArrays answers each row as its values in select order, beside `all` on the same SQL', async () => {
  const store = openStore();
  await store.write(async () => {
    await store.run('INSERT INTO notes (id, text) VALUES (?, ?)', 1, 'one');
    await store.run('INSERT INTO notes (id, text) VALUES (?, ?)', 2, 'two');
  });
  const sql = 'SELECT text, id FROM notes WHERE id >= ? ORDER BY id';
  // The two kinds are prepared apart, so asking one way never changes what the other answers.
  expect(await store.allArrays(sql, 1)).toEqual([
    ['one', 1],
    ['two', 2],
  ]);
  expect(await store.all(sql, 2)).toEqual([{ text: 'two', id: 2 }]);
  expect(await store.allArrays(sql, 2)).toEqual([['two', 2]]);
});

it('migration 023 keeps every agent and what refers to it, and lets two organizations hold one handle', () => {
  const home = tempDir();
  cleanups.push(home.cleanup);
  const file = join(home.dir, 'svc.db');
  const old = storeBefore(file, 23);
  old.exec(
    `INSERT INTO agents (id, org_id, handle, name, status, created_at, fabric_kid, last_read_id)
     VALUES ('agt_1', 'org_1', 'bot', 'Bot', 'active', 'then', 'aaaaaaaaaaaaaaaa', 'aud_1')`,
  );
  old.exec(
    `INSERT INTO agent_grants (jti, agent_id, org_id, token_hash, table_name, columns, created_at, expires_at)
     VALUES ('jti_1', 'agt_1', 'org_1', 'hash_1', 't', '[]', 'then', 'then')`,
  );
  old.close();

  const store = new Store(file);
  cleanups.unshift(() => store.close());
  expect(store.db.prepare('SELECT id, handle, fabric_kid, last_read_id FROM agents').all()).toEqual([
    { id: 'agt_1', handle: 'bot', fabric_kid: 'aaaaaaaaaaaaaaaa', last_read_id: 'aud_1' },
  ]);
  expect(store.db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
  store.db.exec("INSERT INTO orgs VALUES ('org_2', 'Globex', 'now')");
  const insert = store.db.prepare(
    "INSERT INTO agents (id, org_id, handle, name, status, created_at) VALUES (?, ?, 'bot', 'Bot', 'active', 'now')",
  );
  insert.run('agt_2', 'org_2');
  // Within one organization a handle is still one agent's; references are still checked.
  expect(() => insert.run('agt_3', 'org_2')).toThrow(/UNIQUE/);
  expect(() =>
    store.db.exec(
      `INSERT INTO agent_grants (jti, agent_id, org_id, token_hash, table_name, columns, created_at, expires_at)
       VALUES ('jti_2', 'agt_none', 'org_1', 'hash_2', 't', '[]', 'then', 'then')`,
    ),
  ).toThrow(/FOREIGN KEY/);
});
