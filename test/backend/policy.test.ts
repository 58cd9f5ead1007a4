// The grant policy, one pure function: table-driven cases of what a grant releases and why it
// holds the rest, with reasons as typed values.
import { describe, expect, it } from 'vitest';
import { evaluateGrant, reasonText, type PolicyRequest } from '../../src/backend/policy.ts';
import type { GrantScope } from '../../src/backend/credentials.ts';
import type { TableInfo } from '../../src/backend/tables.ts';

const table: TableInfo = {
  name: 'customers',
  columns: [
    { name: 'id', classification: 'public', storage: 'plaintext' },
    { name: 'region', classification: 'public', storage: 'plaintext' },
    { name: 'email', classification: 'pii', storage: 'encrypted' },
    { name: 'balance', classification: 'financial', storage: 'encrypted' },
    { name: 'tier', classification: 'internal', storage: 'plaintext' },
  ],
};
const grant: GrantScope = {
  table: 'customers',
  columns: ['id', 'region', 'email', 'balance'],
  classifications: ['public', 'pii', 'internal'],
  where: { region: 'eu' },
  expiresAt: '2999-01-01T00:00:00.000Z',
  capabilities: [],
};

const cases: [string, PolicyRequest, { allowed: string[]; withheld: string[]; filters: string[] }][] = [
  [
    'granted columns',
    { action: 'read', columns: ['id', 'email'] },
    { allowed: ['id', 'email'], withheld: [], filters: [] },
  ],
  [
    'a column outside the grant, one outside its classifications, one unknown',
    { action: 'read', columns: ['id', 'tier', 'balance', 'nope'] },
    {
      allowed: ['id'],
      withheld: ['not_granted:tier', 'classification_not_granted:balance', 'unknown_column:nope'],
      filters: [],
    },
  ],
  [
    'sending sensitive columns outside the organization',
    { action: 'send', columns: ['id', 'email'], destination: { external: true } },
    { allowed: ['id'], withheld: ['external_destination:email'], filters: [] },
  ],
  [
    'filters: on a sealed column, on a column the grant does not release, against the grant’s own',
    { action: 'read', columns: ['id'], where: { email: 'x', tier: 'gold', region: 'us' } },
    {
      allowed: ['id'],
      withheld: [],
      filters: ['where_not_plaintext:email', 'where_not_granted:tier', 'where_outside_grant:region'],
    },
  ],
  [
    'a filter the grant allows',
    { action: 'read', columns: ['id'], where: { region: 'eu', id: 3 } },
    { allowed: ['id'], withheld: [], filters: [] },
  ],
  [
    'classify names classes of the grant’s columns only',
    { action: 'classify', columns: ['id', 'tier', 'nope'] },
    { allowed: ['id'], withheld: ['not_granted:tier', 'not_granted:nope'], filters: [] },
  ],
  [
    'no columns asked: the grant’s own',
    { action: 'read' },
    { allowed: ['id', 'region', 'email'], withheld: ['classification_not_granted:balance'], filters: [] },
  ],
];

describe('evaluateGrant', () => {
  it.each(cases)('%s', (_name, request, expected) => {
    const evaluation = evaluateGrant(table, grant, request);
    expect(evaluation.tableGranted).toBe(true);
    expect(evaluation.allowed).toEqual(expected.allowed);
    expect(evaluation.withheld.map((w) => reasonText(w.reason))).toEqual(expected.withheld);
    expect(evaluation.filters.map((f) => reasonText(f.reason))).toEqual(expected.filters);
  });

  it('another table releases nothing', () => {
    const other = { ...table, name: 'orders' };
    expect(evaluateGrant(other, grant, { action: 'read', columns: ['id'] })).toMatchObject({
      tableGranted: false,
      allowed: [],
      requested: ['id'],
    });
  });

  it('classify tells classes, never values', () => {
    expect(evaluateGrant(table, grant, { action: 'classify', columns: ['email'] }).classifications).toEqual({
      email: 'pii',
    });
  });
});
