// CSV loads: each column named once, whole numbers past 2^53 kept as the digits written, and at
// least one row, as a JSON load needs; in process and over the rows endpoint alike.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/backend/csv.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { harness, type Harness } from '../helpers.ts';

const refusal = (text: string) => {
  try {
    parseCsv(text);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('parsed');
};

describe('parseCsv', () => {
  it.each([
    ['a column named twice', 'id,email,id\n1,a@x.test,2\n', ['id']],
    ['two columns one name once trimmed', 'id, email,email \n1,a,b\n', ['email']],
    ['several repeated names', 'a,b,a,b\n1,2,3,4\n', ['a', 'b']],
  ])('refuses %s with 400, naming the columns', (_name, text, repeated) => {
    const error = refusal(text);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toMatchObject({ field: 'csv', duplicate_columns: repeated });
    expect(error.message).toMatch(/more than once/);
  });

  it.each([
    ['a header alone', 'id,email\n'],
    ['a header and empty lines', 'id,email\n\n\n'],
    ['a header without its line end', 'id,email'],
  ])('refuses %s: a load needs at least one row', (_name, text) => {
    const error = refusal(text);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/no rows/);
  });

  it.each([
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740993', '9007199254740993'],
    ['-9007199254740993', '-9007199254740993'],
    ['12345678901234567890', '12345678901234567890'],
    ['1.5', 1.5],
    ['0', 0],
    ['007', '007'],
    ['', null],
    ['true', true],
  ])('reads %j as %j', (field, value) => {
    expect(parseCsv(`v\n${field === '' ? '""' : field}\n`)).toEqual([{ v: value }]);
  });

  it('trims the header names and keeps the values as written', () => {
    expect(parseCsv(' id , note\n1, spaced \n')).toEqual([{ id: 1, note: ' spaced ' }]);
  });
});

describe('POST /api/v1/tables/{name}/rows with a CSV body', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.close());

  it('400 for a repeated column or a header alone; an id past 2^53 is stored as its digits', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const token = org.api_key;
    await h.request('POST', '/api/v1/tables', {
      token,
      body: {
        name: 'accounts',
        columns: [
          { name: 'id', classification: 'public', storage: 'plaintext' },
          { name: 'email', classification: 'pii', storage: 'plaintext' },
        ],
      },
    });
    const load = (csv: string) =>
      h.request('POST', '/api/v1/tables/accounts/rows', { token, body: { format: 'csv', csv } });
    const twice = await load('id,email,email\n1,a@x.test,b@x.test\n');
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ error: 'invalid_request', duplicate_columns: ['email'] });
    const headerOnly = await load('id,email\n');
    expect(headerOnly.status).toBe(400);
    expect(headerOnly.body.message).toMatch(/no rows/);
    const big = await load('id,email\n9007199254740993,a@x.test\n');
    expect(big.status, JSON.stringify(big.body)).toBe(200);
    expect(big.body).toMatchObject({ loaded: 1, total_rows: 1 });
    const grant = await h.request('POST', '/api/v1/governance/grant', {
      token,
      body: { agent: 'Reader', table: 'accounts', columns: ['id'] },
    });
    const read = await h.request('POST', `/api/agents/${grant.body.handle}/read`, {
      token: grant.body.grant_token,
      body: { table: 'accounts', columns: ['id'] },
    });
    expect(read.body.rows).toEqual([{ id: '9007199254740993' }]);
  });
});
