// The `svc` command line, run as a real process on a temporary SVC_HOME: organizations and keys,
// agent revocation, table register/load, proof verification, `serve` and the exit codes.
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'undici';
import { Service } from '../../src/backend/service.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { authenticate } from '../../src/backend/credentials.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { createApp } from '../../src/http/app.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, errorLines, killAll, runSvc, startServe, waitForOutput, type Exit } from '../e2e/procs.ts';

const KEY = /^ndp_[A-Za-z0-9_-]{43}$/;

describe('svc CLI', () => {
  const home = tempDir('svc-cli-');
  const files = tempDir('svc-cli-files-');
  const env = (extra: Record<string, string> = {}) => childEnv({ SVC_HOME: home.dir, ...extra });
  let created: Exit & { json: () => unknown };
  let org: { org_id: string; api_key: string };
  const owner = () => env({ SVC_API_KEY: org.api_key });

  /** Runs `work` against the same data dir in this process, then releases the store. */
  async function inProcess<T>(work: (service: Service) => T | Promise<T>): Promise<T> {
    const service = new Service({ dataDir: home.dir });
    try {
      return await work(service);
    } finally {
      service.close();
    }
  }

  /** POST /api/v1/governance/grant through the real HTTP app, in process. */
  async function grantOverHttp(key: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const service = new Service({ dataDir: home.dir });
    try {
      const response = await createApp({ service }).request('http://127.0.0.1/api/v1/governance/grant', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'Http Bot', columns: ['id'] }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } finally {
      service.close();
    }
  }

  function grant(label: string, columns = ['id', 'email']) {
    return inProcess((s) => s.invoke(ops.createGrant, `Bearer ${org.api_key}`, { agent: label, columns }));
  }

  async function expectUnauthorized(token: string) {
    await inProcess(async (s) => {
      let thrown: unknown;
      try {
        await authenticate(s.ctx, `Bearer ${token}`);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ServiceError);
      expect((thrown as ServiceError).code).toBe('unauthorized');
      expect((thrown as ServiceError).status).toBe(401);
    });
  }

  beforeAll(async () => {
    created = await runSvc(['org', 'create', '--name', 'Acme', '--json'], env());
    org = created.json() as typeof org;
  });

  afterEach(async () => {
    await killAll();
  });

  afterAll(async () => {
    await killAll();
    home.cleanup();
    files.cleanup();
  });

  it('--help exits 0 and lists the commands', async () => {
    const help = await runSvc(['--help'], env());
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc /);
    for (const command of ['serve', 'org', 'key', 'agent', 'table', 'verify']) {
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('org create --json prints the organization id and its first key, which works in the store', async () => {
    expect(created.code).toBe(0);
    expect(errorLines(created.stderr)).toEqual([]);
    expect(org).toMatchObject({
      org_id: expect.stringMatching(/^org_/),
      api_key: expect.stringMatching(KEY),
    });
    await inProcess(async (s) => {
      const principal = await authenticate(s.ctx, `Bearer ${org.api_key}`);
      expect(principal).toMatchObject({ kind: 'org_key', orgId: org.org_id, scopes: ['*'] });
      // The demo table is seeded with the organization.
      const { tables } = await s.invoke(ops.listTables, `Bearer ${org.api_key}`, {});
      expect(tables.map((t) => t.name)).toContain('agent_demo_records');
    });
  });

  it('org create without --json prints the key for a human; an empty name is a usage error', async () => {
    const human = await runSvc(['org', 'create', '--name', 'Beta'], env());
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^organization org_\S+\napi key \(shown once\): ndp_[A-Za-z0-9_-]{43}\n/);

    const empty = await runSvc(['org', 'create', '--name', '  ', '--json'], env());
    expect(empty.code).toBe(2);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('--name');
  });

  it('key create without --org makes a key bound to no organization: 403 no_organization on grant', async () => {
    const result = await runSvc(['key', 'create', '--json'], env());
    expect(result.code).toBe(0);
    const { api_key } = result.json() as { api_key: string };
    expect(api_key).toMatch(KEY);
    expect(api_key).not.toBe(org.api_key);

    const http = await grantOverHttp(api_key);
    expect(http.status).toBe(403);
    expect(http.body.error).toBe('no_organization');

    await inProcess(async (s) => {
      const principal = await authenticate(s.ctx, `Bearer ${api_key}`);
      expect(principal).toMatchObject({ kind: 'org_key', orgId: null, scopes: ['*'] });
      await expect(
        s.invoke(ops.createGrant, `Bearer ${api_key}`, { agent: 'Nobody', columns: ['id'] }),
      ).rejects.toThrow(expect.objectContaining({ code: 'no_organization' }));
    });
  });

  it('key create --org ORG --scope fabric makes a fabric-only key: 403 missing_scope on grant', async () => {
    const result = await runSvc(['key', 'create', '--org', org.org_id, '--scope', 'fabric', '--json'], env());
    expect(result.code).toBe(0);
    const { api_key } = result.json() as { api_key: string };
    expect(api_key).toMatch(KEY);

    const http = await grantOverHttp(api_key);
    expect(http.status).toBe(403);
    expect(http.body).toMatchObject({ error: 'missing_scope', required_scope: 'governance' });

    await inProcess(async (s) => {
      const principal = await authenticate(s.ctx, `Bearer ${api_key}`);
      expect(principal).toMatchObject({ orgId: org.org_id, scopes: ['fabric'] });
      // The scope it does hold works.
      await expect(s.invoke(ops.listFabricGrants, `Bearer ${api_key}`, {})).resolves.toBeDefined();
    });

    // The organization's `*` key is allowed the same call: the 403 above is the scope, nothing else.
    const allowed = await grantOverHttp(org.api_key);
    expect(allowed.status).toBe(201);
  });

  it('key create with repeated --scope keeps every scope', async () => {
    const result = await runSvc(
      ['key', 'create', '--org', org.org_id, '--scope', 'governance', '--scope', 'usage', '--json'],
      env(),
    );
    expect(result.code).toBe(0);
    const { api_key } = result.json() as { api_key: string };
    await inProcess(async (s) => {
      expect(await authenticate(s.ctx, `Bearer ${api_key}`)).toMatchObject({
        scopes: ['governance', 'usage'],
      });
    });
  });

  it('an unknown --scope exits 2 and creates no key; an unknown --org exits 1', async () => {
    const keys = () =>
      inProcess(async (s) => (await s.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_keys'))!.n);
    const before = await keys();

    const bad = await runSvc(['key', 'create', '--org', org.org_id, '--scope', 'admin', '--json'], env());
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--scope must be one of');
    expect(bad.stderr).toContain('admin');

    const noOrg = await runSvc(['key', 'create', '--org', 'org_does-not-exist', '--json'], env());
    expect(noOrg.code).toBe(1);
    expect(noOrg.json()).toMatchObject({ error: 'not_found' });

    expect(await keys()).toBe(before);
  });

  it('agent revoke <handle> ends the agent: its token is 401, other agents keep working', async () => {
    const target = await grant('Revoke Me');
    const bystander = await grant('Bystander');

    const result = await runSvc(['agent', 'revoke', target.handle, '--json'], owner());
    expect(result.code).toBe(0);
    const body = result.json() as {
      target: string;
      handle: string;
      revoked_jtis: string[];
      receipt_id: string | null;
    };
    expect(body).toMatchObject({ target: 'agent', handle: target.handle, agent_id: target.agent_id });
    expect(body.revoked_jtis).toEqual([target.jti]);
    expect(body.receipt_id).toMatch(/^rcpt_/);

    await expectUnauthorized(target.grant_token);
    await inProcess(async (s) => {
      expect(await authenticate(s.ctx, `Bearer ${bystander.grant_token}`)).toMatchObject({
        kind: 'agent',
        handle: bystander.handle,
      });
      const { agents } = await s.invoke(ops.listAgents, `Bearer ${org.api_key}`, {});
      expect(agents.find((a) => a.handle === target.handle)?.status).toBe('revoked');
      expect(agents.find((a) => a.handle === bystander.handle)?.status).toBe('active');
      // The revocation is a signed receipt on the service chain.
      expect(await s.invoke(ops.verifyProof, undefined, { proof_id: body.receipt_id! })).toMatchObject({
        found: true,
        authentic: true,
        kind: 'agent.revoke',
      });
    });

    // Revoking again changes nothing and signs nothing.
    const again = await runSvc(['agent', 'revoke', target.handle, '--json'], owner());
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ target: 'agent', revoked_jtis: [], receipt_id: null });
  });

  it('agent revoke <jti> ends just that grant', async () => {
    const target = await grant('Grant Target');
    const other = await grant('Other Agent');

    const result = await runSvc(['agent', 'revoke', target.jti, '--json'], owner());
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      target: 'grant',
      handle: target.handle,
      revoked_jtis: [target.jti],
    });

    await expectUnauthorized(target.grant_token);
    await inProcess(async (s) => {
      expect(await authenticate(s.ctx, `Bearer ${other.grant_token}`)).toMatchObject({
        kind: 'agent',
        jti: other.jti,
      });
      // Only the grant ended: the agent itself is not marked revoked.
      const { agents } = await s.invoke(ops.listAgents, `Bearer ${org.api_key}`, {});
      expect(agents.find((a) => a.handle === target.handle)?.status).toBe('active');
    });
  });

  it('agent revoke without SVC_API_KEY exits 1 with a clear message and revokes nothing', async () => {
    const target = await grant('Still Here');
    const result = await runSvc(['agent', 'revoke', target.handle, '--json'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SVC_API_KEY');
    expect(result.json()).toMatchObject({ error: 'unauthorized' });
    await inProcess(async (s) => {
      expect(await authenticate(s.ctx, `Bearer ${target.grant_token}`)).toMatchObject({
        kind: 'agent',
        handle: target.handle,
      });
    });

    const human = await runSvc(['agent', 'revoke', target.handle], env());
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^svc: set SVC_API_KEY/);
  });

  it('agent revoke of an unknown handle exits 1 with unknown_agent', async () => {
    const result = await runSvc(['agent', 'revoke', 'no-such-agent', '--json'], owner());
    expect(result.code).toBe(1);
    expect(result.json()).toMatchObject({ error: 'unknown_agent' });
  });

  it('table register and table load (.csv and .json) store rows; encrypted columns round-trip', async () => {
    const schema = join(files.dir, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({
        name: 'customers',
        columns: [
          { name: 'id', classification: 'public', storage: 'plaintext' },
          { name: 'full_name', classification: 'pii', storage: 'encrypted' },
          { name: 'ssn', classification: 'secret', storage: 'encrypted' },
          { name: 'vip', classification: 'public', storage: 'plaintext' },
        ],
      }),
    );
    const csv = join(files.dir, 'rows.csv');
    writeFileSync(csv, 'id,full_name,ssn,vip\n1,"Doe, Jane",123-45-6789,true\n2,Ömer Çelik,,false\n');
    const rowsJson = join(files.dir, 'rows.json');
    writeFileSync(
      rowsJson,
      JSON.stringify([
        { id: 3, full_name: 'Zoë "Z" Ng', ssn: '987-65-4321', vip: false },
        { id: 4, full_name: null, ssn: 'x\ny', vip: true },
      ]),
    );

    const registered = await runSvc(['table', 'register', '--file', schema, '--json'], owner());
    expect(registered.code).toBe(0);
    expect(registered.json()).toMatchObject({ name: 'customers' });
    expect((registered.json() as { columns: unknown[] }).columns).toHaveLength(4);

    const fromCsv = await runSvc(['table', 'load', 'customers', '--file', csv, '--json'], owner());
    expect(fromCsv.code).toBe(0);
    expect(fromCsv.json()).toEqual({ table: 'customers', loaded: 2, total_rows: 2 });

    const fromJson = await runSvc(['table', 'load', 'customers', '--file', rowsJson, '--json'], owner());
    expect(fromJson.code).toBe(0);
    expect(fromJson.json()).toEqual({ table: 'customers', loaded: 2, total_rows: 4 });

    // Registering the same name again is refused.
    const twice = await runSvc(['table', 'register', '--file', schema, '--json'], owner());
    expect(twice.code).toBe(1);
    expect(twice.json()).toMatchObject({ error: 'table_exists' });

    // A file with one bad row loads nothing.
    const bad = join(files.dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([
        { id: 5, vip: true },
        { id: 6, nickname: 'x' },
      ]),
    );
    const refused = await runSvc(['table', 'load', 'customers', '--file', bad, '--json'], owner());
    expect(refused.code).toBe(1);
    expect(refused.json()).toMatchObject({ error: 'invalid_request' });

    // Without SVC_API_KEY, table commands are refused.
    const anonymous = await runSvc(['table', 'load', 'customers', '--file', rowsJson], env());
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('SVC_API_KEY');

    const columns = ['id', 'full_name', 'ssn', 'vip'];
    const reader = await inProcess((s) =>
      s.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
        agent: 'Table Reader',
        table: 'customers',
        columns,
      }),
    );
    const read = await inProcess((s) =>
      s.invoke(ops.readRows, `Bearer ${reader.grant_token}`, {
        handle: reader.handle,
        table: 'customers',
        columns,
        limit: 10,
      }),
    );
    expect(read.rows).toEqual([
      { id: 1, full_name: 'Doe, Jane', ssn: '123-45-6789', vip: true },
      { id: 2, full_name: 'Ömer Çelik', ssn: null, vip: false },
      { id: 3, full_name: 'Zoë "Z" Ng', ssn: '987-65-4321', vip: false },
      { id: 4, full_name: null, ssn: 'x\ny', vip: true },
    ]);
    expect(read.audit.id).toMatch(/^aud_/);

    // At rest the encrypted columns are sealed: no plaintext of them in the stored rows or cells.
    const stored = await inProcess(async (s) => ({
      rows: await s.ctx.store.all<{ plain: string }>(
        "SELECT plain FROM data_rows WHERE table_name = 'customers' ORDER BY row_no",
      ),
      cells: await s.ctx.store.all<{ column_name: string; row_no: number; sealed: string }>(
        "SELECT column_name, row_no, sealed FROM data_cells WHERE table_name = 'customers' ORDER BY row_no, column_name",
      ),
    }));
    expect(stored.rows).toHaveLength(4);
    expect(stored.cells).toHaveLength(8);
    const raw = JSON.stringify(stored);
    for (const secret of ['Doe', 'Jane', '123-45-6789', 'Çelik', 'Zoë', '987-65-4321'])
      expect(raw).not.toContain(secret);
    expect(JSON.parse(stored.rows[0]!.plain)).toEqual({ id: 1, vip: true });
    expect(stored.cells.filter((c) => c.row_no === 1).map((c) => c.column_name)).toEqual([
      'full_name',
      'ssn',
    ]);
  });

  it('table register reports unreadable, missing and invalid schema files with exit 1', async () => {
    const notJson = join(files.dir, 'not-json.json');
    writeFileSync(notJson, 'name: customers\n');
    const invalid = join(files.dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ name: 'empty_table', columns: [] }));

    const parse = await runSvc(['table', 'register', '--file', notJson, '--json'], owner());
    expect(parse.code).toBe(1);
    expect(parse.json()).toMatchObject({
      error: 'invalid_request',
      message: expect.stringContaining('not valid JSON'),
    });

    const missing = await runSvc(
      ['table', 'register', '--file', join(files.dir, 'missing.json'), '--json'],
      owner(),
    );
    expect(missing.code).toBe(1);
    expect(missing.json()).toMatchObject({
      error: 'not_found',
      message: expect.stringContaining('missing.json'),
    });

    const schema = await runSvc(['table', 'register', '--file', invalid, '--json'], owner());
    expect(schema.code).toBe(1);
    expect(schema.json()).toMatchObject({
      error: 'invalid_request',
      message: expect.stringContaining('columns'),
    });

    await inProcess(async (s) => {
      const { tables } = await s.invoke(ops.listTables, `Bearer ${org.api_key}`, {});
      const names = tables.map((t) => t.name);
      expect(names).not.toContain('empty_table');
    });
  });

  it('verify <id> --json reports an authentic receipt (exit 0); an unknown id exits 3', async () => {
    const g = await grant('Verify Me');
    const result = await runSvc(['verify', g.receipt_id, '--json'], env());
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      proof_id: g.receipt_id,
      found: true,
      authentic: true,
      unaltered: true,
      chain: 'service',
      kind: 'agent.grant',
    });

    const read = await inProcess((s) =>
      s.invoke(ops.readRows, `Bearer ${g.grant_token}`, {
        handle: g.handle,
        table: 'agent_demo_records',
        columns: ['id'],
      }),
    );
    const audit = await runSvc(['verify', read.audit.id, '--json'], env());
    expect(audit.code).toBe(0);
    expect(audit.json()).toMatchObject({
      found: true,
      authentic: true,
      chain: 'audit',
      chain_index: read.audit.chain_index,
    });

    const human = await runSvc(['verify', g.receipt_id], env());
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^${g.receipt_id}: authentic=true unaltered=true signer=\\S+\\n$`),
    );

    const unknown = await runSvc(['verify', 'rcpt_00000000-0000-0000-0000-000000000000', '--json'], env());
    expect(unknown.code).toBe(3);
    expect(unknown.json()).toMatchObject({ found: false, authentic: false });
  });

  it('verify exits 3 for a receipt altered in the store', async () => {
    const g = await grant('Tampered');
    await inProcess(async (s) => {
      const row = (await s.ctx.store.get<{ payload: string }>(
        'SELECT payload FROM service_chain WHERE id = ?',
        g.receipt_id,
      ))!;
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      await s.ctx.store.run(
        'UPDATE service_chain SET payload = ? WHERE id = ?',
        JSON.stringify({ ...payload, columns: ['id', 'email', 'balance'] }),
        g.receipt_id,
      );
    });
    const result = await runSvc(['verify', g.receipt_id, '--json'], env());
    expect(result.code).toBe(3);
    expect(result.json()).toMatchObject({ found: true, authentic: false, unaltered: false });
  });

  it('serve --port 0 prints its URL, answers GET /openapi.json and exits 0 on SIGTERM', async () => {
    const server = await startServe(env());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(server.url).port)).toBeGreaterThan(0);

    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/governance/grant', '/api/agents/{handle}/read']),
    );
    // And it serves the data dir it was given: the CLI-created key works over HTTP.
    const agents = await fetch(`${server.url}/api/v1/agents`, {
      headers: { authorization: `Bearer ${org.api_key}` },
    });
    expect(agents.status).toBe(200);
    await agents.arrayBuffer();

    server.child.kill('SIGTERM');
    const exit = await server.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.stderr).toContain('SIGTERM');
    expect(exit.stdout).toContain(`OpenAPI:   ${server.url}/openapi.json`);
  });

  it('serve finishes a request in flight on SIGTERM, then exits 0', async () => {
    const g = await grant('In Flight');
    const server = await startServe(env({ SVC_DEBUG_REQUESTS: '1' }));
    const client = new Client(server.url);
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const body = JSON.stringify({ table: 'agent_demo_records', columns: ['id', 'email'], limit: 2 });
      async function* slowBody() {
        yield Buffer.from(body.slice(0, 10));
        await gate;
        yield Buffer.from(body.slice(10));
      }
      const pending = client.request({
        method: 'POST',
        path: `/api/agents/${g.handle}/read`,
        headers: { authorization: `Bearer ${g.grant_token}`, 'content-type': 'application/json' },
        body: Readable.from(slowBody()),
      });
      // SIGTERM lands only once the server has the request (headers in, waiting for the rest of the
      // body): bytes the client has written may still be unread, and an unread connection is idle.
      await waitForOutput(server, 'stderr', `svc: request POST /api/agents/${g.handle}/read`, 10_000);
      server.child.kill('SIGTERM');
      await waitForOutput(server, 'stderr', 'SIGTERM', 10_000);
      release();

      const response = await pending;
      expect(response.statusCode).toBe(200);
      const result = (await response.body.json()) as { count: number; audit: { id: string } };
      expect(result.count).toBe(2);
      await client.close();

      const exit = await Promise.race([
        server.exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('svc serve did not exit within 5 s of its last request')), 5_000),
        ),
      ]);
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      await inProcess(async (s) =>
        expect(await s.invoke(ops.verifyProof, undefined, { proof_id: result.audit.id })).toMatchObject({
          found: true,
          authentic: true,
        }),
      );
    } finally {
      await client.destroy();
    }
  });

  // A keep-alive connection that was busy when SIGTERM arrived must not keep the server alive.
  it('serve stops serving a kept-alive connection after SIGTERM', async () => {
    const server = await startServe(env({ SVC_DEBUG_REQUESTS: '1' }));
    const client = new Client(server.url, { keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      async function* slowBody() {
        yield Buffer.from('{"proof_id":');
        await gate;
        yield Buffer.from('"rcpt_unknown"}');
      }
      const pending = client.request({
        method: 'POST',
        path: '/access/verify',
        headers: { 'content-type': 'application/json' },
        body: Readable.from(slowBody()),
      });
      await waitForOutput(server, 'stderr', 'svc: request POST /access/verify', 10_000);
      server.child.kill('SIGTERM');
      await waitForOutput(server, 'stderr', 'SIGTERM', 10_000);
      // Listening before the answer, so the close of the connection cannot be missed.
      const disconnected = once(client, 'disconnect', { signal: AbortSignal.timeout(10_000) });
      release();
      const inFlight = await pending;
      await inFlight.body.text();
      expect(inFlight.statusCode).toBe(200);
      // The server must be the side that ends it: a connection it left open would still close, a few
      // seconds on, when the client's idle timer (from the server's keep-alive hint) runs out.
      const [, , reason] = (await disconnected) as [unknown, unknown, Error];
      expect(reason.message).toBe('other side closed');

      // Nor is a request sent after that served: the client must reconnect, and nothing listens.
      const after = await client.request({ method: 'GET', path: '/openapi.json' }).then(
        async (r) => {
          await r.body.text();
          return r.statusCode;
        },
        () => 'refused',
      );
      expect(after).toBe('refused');
    } finally {
      await client.destroy();
    }
  });

  it('agent grant prints the grant once; agent ask answers allow 0, degrade 4, deny 5 with a receipt', async () => {
    const granted = await runSvc(
      [
        'agent',
        'grant',
        '--agent',
        'Ask Bot',
        '--column',
        'id',
        '--column',
        'email',
        '--where',
        'region=eu',
        '--json',
      ],
      owner(),
    );
    expect(granted.code).toBe(0);
    const grant = granted.json() as { grant_token: string; handle: string };
    expect(grant.handle).toBe('ask-bot');
    const asAgent = env({ SVC_AGENT_TOKEN: grant.grant_token });
    const ask = async (columns: string[]) =>
      runSvc(['agent', 'ask', ...columns.flatMap((c) => ['--column', c]), '--json'], asAgent);
    const allow = await ask(['id']);
    expect(allow.code).toBe(0);
    expect(allow.json()).toMatchObject({ decision: 'allow' });
    const degrade = await ask(['id', 'phone']);
    expect(degrade.code).toBe(4);
    const deny = await ask(['phone']);
    expect(deny.code).toBe(5);
    const proof = (deny.json() as { proof_id: string }).proof_id;
    await inProcess(async (s) =>
      expect(await s.invoke(ops.verifyProof, undefined, { proof_id: proof })).toMatchObject({
        authentic: true,
        kind: 'access.compute',
      }),
    );
    const human = await runSvc(['agent', 'ask', '--column', 'id'], asAgent);
    expect(human.stdout).toMatch(/^allow: allowed id\nreceipt rcpt_/);
    const noToken = await runSvc(['agent', 'ask', '--column', 'id'], env());
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('SVC_AGENT_TOKEN');
    const badWhere = await runSvc(
      ['agent', 'grant', '--agent', 'x', '--column', 'id', '--where', 'oops'],
      owner(),
    );
    expect(badWhere.code).toBe(2);
    const badTtl = await runSvc(
      ['agent', 'grant', '--agent', 'x', '--column', 'id', '--ttl-seconds', '5', '--json'],
      owner(),
    );
    expect(badTtl.code).toBe(1);
    expect(badTtl.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('mcp --print-config gives each client its own format with absolute paths', async () => {
    for (const [client, marker] of [
      ['claude-code', 'claude mcp add'],
      ['claude-desktop', '"mcpServers"'],
      ['vscode', '"servers"'],
      ['codex', '[mcp_servers.svc]'],
    ] as const) {
      const printed = await runSvc(['mcp', '--print-config', '--client', client], env());
      expect(printed.code).toBe(0);
      expect(printed.stdout).toContain(marker);
      expect(printed.stdout).toContain(process.execPath);
      expect(printed.stdout).toMatch(/\/bin\/svc\.js/);
      // No credential placeholder: svc_connect keeps the key in the keychain, and a pasted
      // placeholder would shadow it.
      expect(printed.stdout).not.toContain('SVC_API_KEY');
    }
    expect((await runSvc(['mcp', '--print-config', '--client', 'emacs'], env())).code).toBe(2);
  });

  it('serve rejects a port out of range with exit 2', async () => {
    const result = await runSvc(['serve', '--port', '70000'], env(), 15_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be 0 to 65535');
  });

  it('serve on a port already in use exits 1 with the reason', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = blocker.address() as AddressInfo;
      const result = await runSvc(['serve', '--port', String(port)], env(), 15_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('SVC_HOME chooses the data dir: another one does not hold this store', async () => {
    const g = await grant('Home Check');
    const elsewhere = tempDir('svc-cli-other-');
    try {
      const result = await runSvc(['verify', g.receipt_id, '--json'], childEnv({ SVC_HOME: elsewhere.dir }));
      expect(result.code).toBe(3);
      expect(result.json()).toMatchObject({ found: false });
      expect(existsSync(join(elsewhere.dir, 'svc.db'))).toBe(true);
    } finally {
      elsewhere.cleanup();
    }
    const here = await runSvc(['verify', g.receipt_id, '--json'], env());
    expect(here.code).toBe(0);
  });
});
