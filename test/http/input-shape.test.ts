// Inputs whose shape passes a schema and then misleads or fails later: lone surrogates (nothing
// could sign them, so a read could not be audited with them), deep nesting (a 500), `__proto__` keys
// (dropped unseen, their value never checked). Each is refused up front, over HTTP and in process
// alike.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { MAX_JSON_DEPTH, checkJsonShape } from '../../src/backend/json-shape.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { harness, orgWithAgent, type Harness } from '../helpers.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

/** JSON text as a client may send it: `\ud800` stays an escape, which JSON.parse turns into a lone surrogate. */
const LONE = '\\ud800';

async function chainCounts() {
  const count = async (table: string) =>
    (await h.service.ctx.store.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
  return { audit: await count('audit_chain'), service: await count('service_chain') };
}

async function post(path: string, token: string, text: string) {
  return h.request('POST', path, { token, body: text });
}

describe('lone surrogates', () => {
  it('a lone surrogate in a read’s purpose or where value is refused before the read, and audited without it; every read leaves its audit row', async () => {
    const org = await orgWithAgent(h);
    const read = `/api/agents/${org.agent.handle}/read`;
    const before = await chainCounts();
    for (const text of [
      `{"table":"agent_demo_records","columns":["id"],"purpose":"audit ${LONE}"}`,
      `{"table":"agent_demo_records","columns":["id"],"where":{"region":"eu${LONE}"}}`,
      // Denied columns too: refused as bad input before the grant is looked at.
      `{"table":"agent_demo_records","columns":["ssn"],"purpose":"${LONE}"}`,
    ]) {
      const r = await post(read, org.agent.grant_token, text);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.message).toMatch(/lone surrogate/);
      // The attempt is audited with what could be signed: the malformed value is left out.
      const row = await h.service.invoke(ops.getProof, undefined, { id: r.body.audit.id });
      expect(row.payload).toMatchObject({
        kind: 'audit.read',
        outcome: 'deny',
        reason: 'invalid_request',
        table: 'agent_demo_records',
        purpose: null,
      });
      expect(JSON.stringify(row.payload)).not.toMatch(/\\ud800|\ud800/);
    }
    // Nothing was released, and nothing but the three audit rows was written.
    expect(await chainCounts()).toEqual({ ...before, audit: before.audit + 3 });

    const allowed = await post(
      read,
      org.agent.grant_token,
      '{"table":"agent_demo_records","columns":["id"]}',
    );
    expect(allowed.status).toBe(200);
    const denied = await post(
      read,
      org.agent.grant_token,
      '{"table":"agent_demo_records","columns":["phone"]}',
    );
    expect(denied.status).toBe(403);
    expect(denied.body.audit).toBeDefined();
    expect((await chainCounts()).audit).toBe(before.audit + 5);
  });

  it('a lone surrogate is refused in process too (the tools’ and the command line’s path), with the same answer', async () => {
    const org = await orgWithAgent(h);
    const input = JSON.parse(
      `{"handle":"${org.agent.handle}","table":"agent_demo_records","columns":["id"],"purpose":"${LONE}"}`,
    ) as never;
    const error = await h.service
      .invoke(ops.readRows, `Bearer ${org.agent.grant_token}`, input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('invalid_request');
    expect((error as ServiceError).message).toMatch(/purpose: is not well-formed Unicode/);
  });

  it('a lone surrogate in an object key is refused, and the message does not echo the key', async () => {
    const org = await orgWithAgent(h);
    const r = await post(
      '/api/v1/governance/grant',
      org.api_key,
      `{"agent":"x","columns":["id"],"where":{"region${LONE}":"eu"}}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/where: a key is not well-formed Unicode/);
  });
});

describe('deep nesting', () => {
  it('a source call body nested 10,000 deep is a 400 that names the limit, not a 500', async () => {
    const org = await orgWithAgent(h);
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const r = await post(
      '/api/v1/sources/crm/call',
      org.api_key,
      `{"method":"POST","path":"x","confirmed":true,"body":${deep}}`,
    );
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(r.body.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(r.body.message.length).toBeLessThan(300);
  });

  it('the same body through the in-process invoker is the same refusal', async () => {
    const org = await orgWithAgent(h);
    let body: unknown = 1;
    for (let i = 0; i < 10_000; i++) body = [body];
    const error = await h.service
      .invoke(ops.callSource, `Bearer ${org.api_key}`, {
        source: 'crm',
        method: 'POST',
        path: 'x',
        body,
        confirmed: true,
      })
      .catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe('invalid_request');
    expect((error as ServiceError).message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('nesting up to the limit passes the check', () => {
    let value: unknown = 'leaf';
    for (let i = 1; i < MAX_JSON_DEPTH; i++) value = [value];
    expect(() => checkJsonShape({ body: value })).not.toThrow();
    expect(() => checkJsonShape({ body: [value] })).toThrow(/deeper than/);
  });
});

describe('__proto__ keys', () => {
  it('a `__proto__` key in a grant’s where is refused with 400, not dropped (the grant would have been wider than asked)', async () => {
    const org = await orgWithAgent(h);
    const r = await post(
      '/api/v1/governance/grant',
      org.api_key,
      '{"agent":"x","columns":["id"],"where":{"__proto__":{"region":"eu"}}}',
    );
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/where\.__proto__: the key `__proto__` is not accepted/);
    const roster = await h.request('GET', '/api/v1/agents', { token: org.api_key });
    expect(roster.body.agents.map((a: { handle: string }) => a.handle)).toEqual([org.agent.handle]);
  });

  it('a `__proto__` key in a recovery event’s detail is refused with 400, its value never recorded', async () => {
    const org = await orgWithAgent(h);
    const before = await chainCounts();
    const r = await post(
      '/v1/recovery/event',
      org.api_key,
      '{"kind":"phrase_verified","detail":{"__proto__":{"x":1},"device":"laptop"}}',
    );
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.message).toMatch(/detail\.__proto__/);
    expect(await chainCounts()).toEqual(before);
  });

  it('the in-process invoker refuses it too', async () => {
    const org = await orgWithAgent(h);
    const input = JSON.parse('{"agent":"x","columns":["id"],"where":{"__proto__":"eu"}}') as never;
    const error = await h.service
      .invoke(ops.createGrant, `Bearer ${org.api_key}`, input)
      .catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe('invalid_request');
  });
});
