// Tamper evidence: changing any byte of a stored receipt or audit row makes verify answer false
// for it, and the full chain walk reports where it broke.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, orgWithAgent, type Harness } from '../helpers.ts';

let h: Harness;
let receiptId: string;
let auditId: string;

beforeAll(async () => {
  h = harness();
  const { agent } = await orgWithAgent(h);
  const principal = h.service.authenticate(`Bearer ${agent.grant_token}`);
  // Entries on both sides of the ones under test, so both neighbour links are checked.
  h.service.compute(principal, { columns: ['id'] }, true);
  receiptId = h.service.compute(principal, { columns: ['id', 'phone'] }, true).proof_id!;
  h.service.compute(principal, { columns: ['id'] }, true);
  h.service.read(principal, agent.handle, { table: 'agent_demo_records', columns: ['id'] });
  auditId = h.service.read(principal, agent.handle, {
    table: 'agent_demo_records',
    columns: ['id', 'email'],
    limit: 2,
  }).audit.id;
  h.service.read(principal, agent.handle, { table: 'agent_demo_records', columns: ['id'] });
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

describe.each([
  ['a receipt on the service chain', 'service_chain', () => receiptId],
  ['an audit row on the read chain', 'audit_chain', () => auditId],
])('%s', (_label, table, idOf) => {
  it('verifies before any change', () => {
    expect(h.service.verify(idOf())).toMatchObject({ authentic: true, unaltered: true, found: true });
  });

  it.each(TEXT_COLUMNS[table]!)('every byte of %s', (column) => {
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
      const verdict = h.service.verify(id);
      update.run(row.value, row.chain_index);
      if (verdict.authentic || verdict.unaltered)
        throw new Error(`changing byte ${i} of ${column} still verifies`);
      checked++;
    }
    expect(checked).toBe(row.value.length);
    expect(h.service.verify(id)).toMatchObject({ authentic: true, unaltered: true });
  });

  it('a changed position (chain_index) never verifies', () => {
    const db = h.service.ctx.store.db;
    const row = db.prepare(`SELECT chain_index FROM ${table} WHERE id = ?`).get(idOf()) as {
      chain_index: number;
    };
    db.prepare(`UPDATE ${table} SET chain_index = 1000000 WHERE chain_index = ?`).run(row.chain_index);
    try {
      expect(h.service.verify(idOf())).toMatchObject({ authentic: false, unaltered: false });
    } finally {
      db.prepare(`UPDATE ${table} SET chain_index = ? WHERE chain_index = 1000000`).run(row.chain_index);
    }
  });

  it('a deleted entry is not found and breaks the chain walk', () => {
    const db = h.service.ctx.store.db;
    const chain = table === 'service_chain' ? 'service' : 'audit';
    const saved = db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(idOf()) as Record<
      string,
      string | number
    >;
    expect(h.service.ctx.chains.verifyAll(chain).ok).toBe(true);
    db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(idOf());
    try {
      expect(h.service.verify(idOf())).toMatchObject({
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

  it('a payload re-signed by another key is not authentic', () => {
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
      expect(h.service.verify(idOf())).toMatchObject({ authentic: false, signer: null });
    } finally {
      db.prepare(`UPDATE ${table} SET signature_hex = ? WHERE chain_index = ?`).run(
        row.signature_hex,
        row.chain_index,
      );
    }
  });
});
