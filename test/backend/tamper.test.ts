// Tamper evidence: what verification reports when stored chain entries are altered, moved or removed.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/proofs/format.ts';
import { verifyReceiptOffline } from '../../src/sdk/receipt.ts';
import { authenticate, type AgentPrincipal } from '../../src/backend/credentials.ts';
import * as governance from '../../src/backend/governance.ts';
import { harness, orgWithAgent, type Harness } from '../helpers.ts';

let h: Harness;
let receiptId: string;
let auditId: string;
let appendTo: (table: string) => Promise<string>;
/** The verdict the verify operation reports, from the chain check behind it. */
const verify = (id: string) => h.service.ctx.chains.check(id);

beforeAll(async () => {
  h = harness();
  const { agent } = await orgWithAgent(h);
  // The core's own calls, synchronous, so that a test can append between two alterations.
  const principal = (await authenticate(h.service.ctx, `Bearer ${agent.grant_token}`)) as AgentPrincipal;
  const compute = (columns: string[]) => governance.compute(h.service.ctx, principal, { columns }, true);
  const read = (input: governance.ReadInput) => governance.read(h.service.ctx, principal, input);
  appendTo = async (table) =>
    table === 'service_chain'
      ? (await compute(['id'])).proof_id!
      : (await read({ table: 'agent_demo_records', columns: ['id'] })).audit.id;
  // Entries on both sides of the ones under test, so both neighbour links are checked.
  await compute(['id']);
  receiptId = (await compute(['id', 'phone'])).proof_id!;
  await compute(['id']);
  await read({ table: 'agent_demo_records', columns: ['id'] });
  auditId = (
    await read({
      table: 'agent_demo_records',
      columns: ['id', 'email'],
      limit: 2,
    })
  ).audit.id;
  await read({ table: 'agent_demo_records', columns: ['id'] });
  // Room after the entries under test, so that cuts and swaps leave untouched entries on both sides.
  for (let i = 0; i < 3; i++) {
    await appendTo('service_chain');
    await appendTo('audit_chain');
  }
});
afterAll(() => h.close());

/** Every stored column of an entry; the service chain also stores the kind. */
const COMMON_COLUMNS = [
  'id',
  'org_id',
  'payload',
  'signing_kid',
  'signature_hex',
  'signed_at',
  'prev_hash',
  'hash',
];
const TEXT_COLUMNS: Record<string, string[]> = {
  service_chain: [...COMMON_COLUMNS, 'kind'],
  audit_chain: COMMON_COLUMNS,
};

/** Replaces the character at `index` with a different one, as an attacker editing the file would. */
function flip(text: string, index: number): string {
  const ch = text[index]!;
  const replacement = ch === 'a' ? 'b' : ch === '0' ? '1' : ch === '"' ? "'" : 'a';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

/** A stored chain row: the columns both tables share, and the service chain's `kind`. */
interface StoredRow {
  chain_index: number;
  id: string;
  payload: string;
  signing_kid: string;
  signature_hex: string;
  signed_at: string;
  prev_hash: string;
  hash: string;
  [column: string]: string | number | null;
}

/** Every row of a chain table, in chain order. */
function rowsOf(table: string): StoredRow[] {
  return h.service.ctx.store.db
    .prepare(`SELECT * FROM ${table} ORDER BY chain_index`)
    .all() as unknown as StoredRow[];
}

/** Puts a chain table back exactly as `saved` had it, whatever an attack did to it. */
function restoreRows(table: string, saved: StoredRow[]): void {
  const db = h.service.ctx.store.db;
  db.exec(`DELETE FROM ${table}`);
  for (const row of saved) {
    const columns = Object.keys(row);
    db.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    ).run(...columns.map((c) => row[c]!));
  }
}

const CHAIN_OF: Record<string, 'service' | 'audit'> = { service_chain: 'service', audit_chain: 'audit' };

/**
 * Runs an attack against the stored rows of one chain, then undoes it. The chain must verify whole
 * before and after, so every attack starts from a sound chain and leaves one for the next test.
 */
async function underAttack(table: string, attack: (saved: StoredRow[]) => Promise<void>): Promise<void> {
  const chain = CHAIN_OF[table]!;
  const saved = rowsOf(table);
  expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({ ok: true, length: saved.length });
  try {
    await attack(saved);
  } finally {
    restoreRows(table, saved);
  }
  expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({ ok: true, length: saved.length });
}

/** Moves a row to another position; the primary key allows one row per position. */
function moveRow(table: string, from: number, to: number): void {
  h.service.ctx.store.db.prepare(`UPDATE ${table} SET chain_index = ? WHERE chain_index = ?`).run(to, from);
}

describe.each([
  ['a receipt on the service chain', 'service_chain', () => receiptId],
  ['an audit row on the read chain', 'audit_chain', () => auditId],
])('%s', (_label, table, idOf) => {
  it('verifies before any change', async () => {
    expect(await verify(idOf())).toMatchObject({ authentic: true, unaltered: true, found: true });
  });

  it.each(TEXT_COLUMNS[table]!)('every byte of %s', async (column) => {
    const db = h.service.ctx.store.db;
    const id = idOf();
    const row = db.prepare(`SELECT chain_index, ${column} AS value FROM ${table} WHERE id = ?`).get(id) as {
      chain_index: number;
      value: string;
    };
    const update = db.prepare(`UPDATE ${table} SET ${column} = ? WHERE chain_index = ?`);
    let checked = 0;
    for (let i = 0; i < row.value.length; i++) {
      update.run(flip(row.value, i), row.chain_index);
      const verdict = await verify(id);
      update.run(row.value, row.chain_index);
      if (verdict.authentic || verdict.unaltered)
        throw new Error(`changing byte ${i} of ${column} still verifies`);
      checked++;
    }
    expect(checked).toBe(row.value.length);
    expect(await verify(id)).toMatchObject({ authentic: true, unaltered: true });
  });

  it('a changed position (chain_index) never verifies', async () => {
    const db = h.service.ctx.store.db;
    const row = db.prepare(`SELECT chain_index FROM ${table} WHERE id = ?`).get(idOf()) as {
      chain_index: number;
    };
    db.prepare(`UPDATE ${table} SET chain_index = 1000000 WHERE chain_index = ?`).run(row.chain_index);
    try {
      expect(await verify(idOf())).toMatchObject({ authentic: false, unaltered: false });
    } finally {
      db.prepare(`UPDATE ${table} SET chain_index = ? WHERE chain_index = 1000000`).run(row.chain_index);
    }
  });

  it('a deleted entry is not found and breaks the chain walk', async () => {
    const db = h.service.ctx.store.db;
    const chain = table === 'service_chain' ? 'service' : 'audit';
    const saved = db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(idOf()) as Record<
      string,
      string | number
    >;
    expect(h.service.ctx.chains.verifyAll(chain).ok).toBe(true);
    db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(idOf());
    try {
      expect(await verify(idOf())).toMatchObject({
        found: false,
        authentic: false,
        unaltered: false,
        signer: null,
      });
      expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({
        ok: false,
        first_broken_index: saved.chain_index,
      });
    } finally {
      const columns = Object.keys(saved);
      db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ).run(...columns.map((c) => saved[c]!));
    }
    expect(h.service.ctx.chains.verifyAll(chain).ok).toBe(true);
  });

  it('a signature replaced by other bytes is not authentic', async () => {
    const db = h.service.ctx.store.db;
    const row = db.prepare(`SELECT chain_index, signature_hex FROM ${table} WHERE id = ?`).get(idOf()) as {
      chain_index: number;
      signature_hex: string;
    };
    db.prepare(`UPDATE ${table} SET signature_hex = ? WHERE chain_index = ?`).run(
      'ab'.repeat(64),
      row.chain_index,
    );
    try {
      expect(await verify(idOf())).toMatchObject({ authentic: false, signer: null });
    } finally {
      db.prepare(`UPDATE ${table} SET signature_hex = ? WHERE chain_index = ?`).run(
        row.signature_hex,
        row.chain_index,
      );
    }
  });

  it.each([
    ['its own kid', true],
    ["the service's kid", false],
  ])(
    'an altered entry re-signed with another real Ed25519 key under %s, every later entry re-linked and re-signed, is not authentic',
    async (_kidLabel, ownKid) => {
      const chain = CHAIN_OF[table]!;
      const forger = generateKeyPairSync('ed25519');
      const forgerKeyHex = forger.publicKey
        .export({ format: 'der', type: 'spki' })
        .subarray(-32)
        .toString('hex');
      const forgerKid = createHash('sha256')
        .update(Buffer.from(forgerKeyHex, 'hex'))
        .digest('hex')
        .slice(0, 16);
      const published = h.service.ctx.signer.published();
      expect(published.map((k) => k.signing_kid)).not.toContain(forgerKid);
      const kid = ownKid ? forgerKid : published[0]!.signing_kid;

      await underAttack(table, async (saved) => {
        const at = saved.findIndex((row) => row.id === idOf());
        const update = h.service.ctx.store.db.prepare(
          `UPDATE ${table} SET payload = ?, signing_kid = ?, signature_hex = ?, prev_hash = ?, hash = ? WHERE chain_index = ?`,
        );
        // The forger rebuilds everything a key-less check looks at: canonical text, hashes, links.
        let prevHash = saved[at]!.prev_hash;
        const forged: { text: string; signature: string; hash: string }[] = [];
        for (const row of saved.slice(at)) {
          const payload = JSON.parse(row.payload) as Record<string, unknown>;
          if (row.id === idOf()) payload.agent_id = 'agt_someone_else';
          payload.signing_kid = kid;
          payload.prev_hash = prevHash;
          const text = canonicalText(payload);
          const hash = createHash('sha256').update(text).digest('hex');
          const signature = sign(null, Buffer.from(text), forger.privateKey).toString('hex');
          update.run(text, kid, signature, prevHash, hash, row.chain_index);
          forged.push({ text, signature, hash });
          prevHash = hash;
        }

        expect(await verify(idOf())).toMatchObject({
          found: true,
          authentic: false,
          unaltered: false,
          signer: null,
          checks: { payload_hash: true, fields: true, prev_link: true, next_link: true, signature: false },
        });
        for (const row of saved.slice(at)) {
          expect(await verify(row.id)).toMatchObject({ authentic: false, unaltered: false });
        }
        expect(await verify(saved[at - 1]!.id)).toMatchObject({ authentic: true });
        expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({
          ok: false,
          first_broken_index: saved[at]!.chain_index,
          reason: 'signature',
        });
        // Without the key check the rebuilt chain looks whole: only the published key exposes it.
        expect(h.service.ctx.chains.verifyAll(chain, { signatures: false })).toMatchObject({
          ok: true,
          length: saved.length,
        });

        // Offline, the forged receipt fails under the published key; under the forger's own key it
        // passes, which is why a verifier takes the key from the published set, never the receipt.
        const receipt = {
          receipt_id: idOf(),
          signature_hex: forged[0]!.signature,
          signing_kid: kid,
          signed_at: saved[at]!.signed_at,
          hash: forged[0]!.hash,
          chain_index: saved[at]!.chain_index,
          payload: JSON.parse(forged[0]!.text) as Record<string, unknown>,
        };
        const offline = verifyReceiptOffline(receipt, published[0]!.public_key_hex);
        expect(offline.valid).toBe(false);
        expect(offline.checks.signature).toBe(false);
        expect(verifyReceiptOffline(receipt, forgerKeyHex).valid).toBe(ownKid);
      });
    },
  );

  it('truncating the tail (deleting the newest entries) goes unnoticed: the remaining entries still verify', async () => {
    const chain = CHAIN_OF[table]!;
    await underAttack(table, async (saved) => {
      const kept = saved.slice(0, -2);
      const removed = saved.slice(-2);
      h.service.ctx.store.db.prepare(`DELETE FROM ${table} WHERE chain_index > ?`).run(kept.length);

      // Nothing signed records how long the chain was, so a shorter chain is a whole chain.
      expect(h.service.ctx.chains.verifyAll(chain)).toEqual({
        ok: true,
        length: kept.length,
        first_broken_index: null,
        reason: null,
      });
      for (const row of kept) {
        expect(await verify(row.id)).toMatchObject({
          found: true,
          authentic: true,
          unaltered: true,
        });
      }
      // Only whoever holds a removed entry's id can tell: that id is no longer found, while the
      // receipt they were given still verifies offline under the published key.
      const publishedKey = h.service.ctx.signer.published()[0]!.public_key_hex;
      for (const row of removed) {
        expect(await verify(row.id)).toMatchObject({ found: false, authentic: false });
        const receipt = {
          receipt_id: row.id,
          signature_hex: row.signature_hex,
          signing_kid: row.signing_kid,
          signed_at: row.signed_at,
          hash: row.hash,
          chain_index: row.chain_index,
          payload: JSON.parse(row.payload) as Record<string, unknown>,
        };
        expect(verifyReceiptOffline(receipt, publishedKey).valid).toBe(true);
      }

      // The chain then grows from the cut: a new entry takes a removed position and the chain is
      // whole again, while the removed id stays not found.
      const next = await appendTo(table);
      expect(next.split('_')[1]).toBe(String(kept.length + 1));
      expect(await verify(next)).toMatchObject({ authentic: true, unaltered: true });
      expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({ ok: true, length: kept.length + 1 });
      expect(await verify(removed[0]!.id)).toMatchObject({ found: false, authentic: false });
    });
  });

  it('deleting a middle entry (leaving a gap) breaks the next entry and stops the chain walk at the gap', async () => {
    const chain = CHAIN_OF[table]!;
    await underAttack(table, async (saved) => {
      const at = saved.findIndex((row) => row.id === idOf());
      const gone = saved[at]!;
      h.service.ctx.store.db.prepare(`DELETE FROM ${table} WHERE chain_index = ?`).run(gone.chain_index);

      expect(await verify(saved[at + 1]!.id)).toMatchObject({
        found: true,
        authentic: false,
        unaltered: false,
        checks: { prev_link: false },
      });
      expect(h.service.ctx.chains.verifyAll(chain)).toMatchObject({
        ok: false,
        length: at,
        first_broken_index: gone.chain_index,
        reason: 'gap',
      });
      // A single check sees only an entry's neighbours: the entry before the gap looks like a head,
      // and entries further on still check out alone. Only the walk from index 1 vouches for them.
      expect(await verify(saved[at - 1]!.id)).toMatchObject({ authentic: true });
      expect(await verify(saved[at + 2]!.id)).toMatchObject({ authentic: true });
    });
  });

  it('deleting a middle entry and renumbering the later ones to close the gap is caught at the cut', async () => {
    const chain = CHAIN_OF[table]!;
    await underAttack(table, async (saved) => {
      const at = saved.findIndex((row) => row.id === idOf());
      h.service.ctx.store.db
        .prepare(`DELETE FROM ${table} WHERE chain_index = ?`)
        .run(saved[at]!.chain_index);
      for (const row of saved.slice(at + 1)) moveRow(table, row.chain_index, row.chain_index - 1);

      // Positions run without a gap, but each moved entry's signed payload names its old position.
      for (const signatures of [true, false]) {
        expect(h.service.ctx.chains.verifyAll(chain, { signatures })).toMatchObject({
          ok: false,
          first_broken_index: saved[at]!.chain_index,
          reason: 'fields',
        });
      }
      for (const row of saved.slice(at)) {
        expect(await verify(row.id)).toMatchObject({ authentic: false, unaltered: false });
      }
    });
  });

  it.each([
    ['positions', 1],
    ['positions', 2],
    ['contents', 1],
  ] as const)(
    'reordering: swapping the %s of two entries %i apart is caught from the first of them on',
    async (what, distance) => {
      const chain = CHAIN_OF[table]!;
      await underAttack(table, async (saved) => {
        const at = saved.findIndex((row) => row.id === idOf());
        const a = saved[at]!;
        const b = saved[at + distance]!;
        const ai = a.chain_index;
        const bi = b.chain_index;
        if (what === 'positions') {
          moveRow(table, ai, -1);
          moveRow(table, bi, ai);
          moveRow(table, -1, bi);
        } else {
          // Each entry keeps its id and position; everything else trades places.
          const columns = Object.keys(a).filter((c) => c !== 'id' && c !== 'chain_index');
          const update = h.service.ctx.store.db.prepare(
            `UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE chain_index = ?`,
          );
          update.run(...columns.map((c) => b[c]!), ai);
          update.run(...columns.map((c) => a[c]!), bi);
        }

        for (const signatures of [true, false]) {
          expect(h.service.ctx.chains.verifyAll(chain, { signatures })).toMatchObject({
            ok: false,
            first_broken_index: ai,
            reason: 'fields',
          });
        }
        // Swapped positions: each id names a position the other entry now holds, so neither is
        // found. Swapped contents: both are found, and their payloads name the other entry.
        for (const row of [a, b]) {
          expect(await verify(row.id)).toMatchObject(
            what === 'positions'
              ? { found: false, authentic: false }
              : { found: true, authentic: false, checks: { fields: false } },
          );
        }
        expect(await verify(saved[at - 1]!.id)).toMatchObject({
          authentic: false,
          checks: { next_link: false },
        });
        expect(await verify(saved[at + distance + 1]!.id)).toMatchObject({
          authentic: false,
          checks: { prev_link: false },
        });
        for (const row of saved.slice(at + 1, at + distance)) {
          expect(await verify(row.id)).toMatchObject({
            authentic: false,
            checks: { prev_link: false, next_link: false },
          });
        }
      });
    },
  );
});
