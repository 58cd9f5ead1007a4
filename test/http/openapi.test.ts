// The OpenAPI 3.1 document: built from the validating schemas, complete, and clean under a real
// linter (@redocly/cli, its recommended rules).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { generateFabricKeyPair, openEnrollChallenge, sealEnvelope } from '../../src/sdk/fabric.ts';
import { sealForLink } from '../../src/proofs/link-seal.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { ROUTES } from '../../src/backend/routes.ts';
import { harness } from '../helpers.ts';

/** Every endpoint of the specification's two groups. */
const SPEC_ROUTES = [
  'POST /api/v1/governance/grant',
  'GET /api/v1/agents',
  'POST /api/access/compute',
  'POST /api/agents/{handle}/read',
  'POST /api/agents/{handle}/fabric/enroll',
  'GET /api/v1/fabric-grants',
  'POST /api/v1/fabric-grants',
  'PATCH /api/v1/fabric-grants',
  'POST /api/agents/{handle}/fabric/send',
  'GET /api/agents/{handle}/fabric/inbox',
  'POST /api/agents/{handle}/fabric/fetch',
  'POST /v1/documents/compute',
  'POST /access/verify',
  'POST /v1/capsules',
  'GET /v1/capsules',
  'GET /v1/capsules/{id}',
  'POST /v1/capsules/{id}/documents',
  'POST /v1/capsules/{id}/members',
  'POST /v1/capsules/{id}/ai-grants',
  'POST /v1/capsules/{id}/revoke',
  'POST /v1/recovery/pubkey',
  'POST /v1/recovery/copy',
  'POST /v1/recovery/event',
  'GET /v1/recovery/state',
  'GET /v1/overview',
  'GET /v1/usage/invoice',
];

/** Endpoints svc adds; each must carry x-svc-extension. */
const EXTENSIONS = [
  'POST /api/v1/governance/revoke',
  'GET /api/v1/tables',
  'POST /api/v1/tables',
  'POST /api/v1/tables/{name}/rows',
  'GET /access/proofs/{id}',
  'GET /.well-known/svc-keys.json',
  'GET /api/v1/whoami',
  'GET /api/v1/policy',
  'GET /api/v1/proofs',
  'POST /api/access/retrieve',
  'POST /api/access/read',
  'POST /api/v1/nodes',
  'POST /api/v1/terms',
  'GET /api/v1/terms',
  'GET /api/v1/terms/{version}',
  'POST /api/v1/sources',
  'GET /api/v1/sources',
  'POST /api/v1/sources/{name}/call',
  'GET /api/v1/rules',
  'POST /api/v1/rules',
  'DELETE /api/v1/rules/{rule_id}',
  'POST /api/v1/patches',
  'GET /api/v1/patches',
  'POST /api/v1/patches/{patch_id}/approve',
  'POST /api/v1/patches/{patch_id}/reject',
  'GET /api/v1/scan-feedback',
  'POST /api/v1/scan-feedback/{feedback_id}/promote',
  'POST /api/v1/scans/{scan_id}/plan/apply',
  'POST /api/v1/links',
  'GET /api/v1/links',
  'GET /api/v1/links/{link_id}',
  'POST /api/v1/links/{link_id}/burn',
  'POST /api/v1/links/{link_id}/revoke',
  'GET /s/{link_id}/info',
  'POST /s/{link_id}/open',
  'GET /x/{exposure_id}/files',
  'POST /x/{exposure_id}/copy',
  'POST /api/v1/connect/device',
  'POST /api/v1/connect/token',
  'POST /api/access/use',
  'POST /api/agents/{handle}/fabric/enroll/challenge',
  'GET /api/agents/{handle}/fabric/senders',
  'GET /api/agents/{handle}/fabric/keys/{kid}',
];

const h = harness();
afterAll(() => h.close());

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1, lists every route, and marks the extensions', async () => {
    const r = await h.request('GET', '/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const operations = Object.entries(
      doc.paths as Record<string, Record<string, { 'x-svc-extension'?: boolean }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
    );
    const routes = operations.map((o) => o.route).sort();
    expect(routes).toEqual([...SPEC_ROUTES, ...EXTENSIONS].sort());
    const extensions = operations
      .filter((o) => o.op['x-svc-extension'])
      .map((o) => o.route)
      .sort();
    expect(extensions).toEqual([...EXTENSIONS].sort());
    // The request schema is the validating one: its limits appear in the document.
    const read = doc.components.schemas.ReadRequest;
    expect(read.properties.limit).toMatchObject({ minimum: 1, maximum: 200 });
  });

  it('passes @redocly/cli lint with no errors and no warnings', async () => {
    const r = await h.request('GET', '/openapi.json');
    const file = join(h.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(r.body));
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    let output: string;
    try {
      output = execFileSync(process.execPath, [cli, 'lint', file, '--format=stylish', '--max-problems=50'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      throw new Error(`redocly lint failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`, {
        cause: error,
      });
    }
    expect(output).not.toMatch(/warning|error/i);
  });
});

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
  components: object;
};

/**
 * Checks every answer against the published document: its status must be documented for the route,
 * and its body valid under that status's schema (by a JSON Schema validator, Ajv, that knows nothing
 * of the zod schemas the document came from).
 */
function answersChecker(doc: Doc) {
  const validator = new AjvJsonSchemaValidator();
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  const checked: string[] = [];
  const request = async (
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const answer = await h.request(method, path, options);
    const bare = path.split('?')[0]!;
    const { template } = templates.find((t) => t.pattern.test(bare)) ?? {};
    expect(template, `${method} ${bare} is in the document`).toBeDefined();
    const responses = doc.paths[template!]![method.toLowerCase()]!.responses;
    const documented = responses[String(answer.status)];
    expect(
      documented,
      `${method} ${template} documents ${answer.status} (${JSON.stringify(answer.body)})`,
    ).toBeDefined();
    const schema = documented!.content?.['application/json']?.schema;
    expect(schema, `${method} ${template} ${answer.status} has a JSON schema`).toBeDefined();
    const verdict = validator.getValidator({ ...schema, components: doc.components } as never)(answer.body);
    expect(
      verdict.valid,
      `${method} ${template} ${answer.status}: ${verdict.errorMessage}\n${JSON.stringify(answer.body).slice(0, 600)}`,
    ).toBe(true);
    checked.push(`${method} ${template} ${answer.status}`);
    return answer;
  };
  return { request, checked };
}

describe('real answers against the published document', () => {
  it('every answer of a governance, Fabric, links and capsules walk is documented and valid, null receipts included', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body as Doc;
    const { request, checked } = answersChecker(doc);
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Walk' });
    const key = org.api_key;

    const agent = async (label: string) => {
      const grant = await request('POST', '/api/v1/governance/grant', {
        token: key,
        body: { agent: label, columns: ['id', 'region'] },
      });
      expect(grant.status).toBe(201);
      const { handle, grant_token: token } = grant.body as { handle: string; grant_token: string };
      const keys = await generateFabricKeyPair();
      const challenge = await request('POST', `/api/agents/${handle}/fabric/enroll/challenge`, {
        token,
        body: { ecdh_pubkey_hex: keys.publicKeyHex },
      });
      const proof = await openEnrollChallenge({
        challenge_b64: challenge.body.challenge_b64,
        privateKeyHex: keys.privateKeyHex,
      });
      const enrolled = await request('POST', `/api/agents/${handle}/fabric/enroll`, {
        token,
        body: { ecdh_pubkey_hex: keys.publicKeyHex, proof },
      });
      return { handle, token, keys, kid: enrolled.body.kid as string };
    };
    const sender = await agent('Walk Sender');
    const recipient = await agent('Walk Recipient');

    await request('GET', '/api/v1/agents', { token: key });
    await request('GET', '/api/v1/whoami', { token: sender.token });
    await request('GET', '/api/v1/policy', { token: key });
    await request('POST', '/api/access/compute?receipt=true', {
      token: sender.token,
      body: { columns: ['id'] },
    });
    await request('POST', '/api/access/compute', { token: sender.token, body: { table: 'ghosts' } });
    const read = `/api/agents/${sender.handle}/read`;
    await request('POST', read, {
      token: sender.token,
      body: { table: 'agent_demo_records', columns: ['id'] },
    });
    await request('POST', read, {
      token: sender.token,
      body: { table: 'agent_demo_records', columns: ['email'] },
    });
    await request('POST', read, {
      token: sender.token,
      body: { table: 'agent_demo_records', columns: ['id'], limit: 500 },
    });
    await request('POST', `/api/agents/${recipient.handle}/read`, {
      token: sender.token,
      body: { table: 'agent_demo_records', columns: ['id'] },
    });
    await request('POST', '/api/access/retrieve', { token: sender.token, body: { columns: ['email'] } });
    await request('POST', '/api/access/retrieve', {
      token: sender.token,
      body: { columns: ['id', 'email'] },
    });

    // Path parameters and queries are validated: their 400s are documented.
    await request('GET', '/api/agents/Bob_X/fabric/inbox', { token: recipient.token });
    await request('GET', `/api/agents/${recipient.handle}/fabric/keys/NOT-A-KID`, { token: sender.token });
    await request('GET', '/api/v1/proofs?limit=1&limit=2', { token: key });
    await request('GET', '/api/v1/proofs?limit=2', { token: key });
    await request('GET', '/v1/usage/invoice?month=soon', { token: key });

    const created = await request('POST', '/api/v1/fabric-grants', {
      token: key,
      body: { subject_kid: recipient.kid },
    });
    await request('POST', '/api/v1/fabric-grants', { token: key, body: { subject_kid: recipient.kid } });
    await request('GET', '/api/v1/fabric-grants', { token: key });
    await request('GET', `/api/agents/${recipient.handle}/fabric/senders`, { token: recipient.token });
    await request('GET', `/api/agents/${sender.handle}/fabric/keys/${recipient.kid}`, {
      token: sender.token,
    });
    const sealed = await sealEnvelope({
      plaintext: 'hello',
      recipientPublicKeyHex: recipient.keys.publicKeyHex,
    });
    const sent = await request('POST', `/api/agents/${sender.handle}/fabric/send`, {
      token: sender.token,
      body: {
        recipient_kid: recipient.kid,
        ciphertext_b64: sealed.ciphertext_b64,
        wrapped_key_b64: sealed.wrapped_key_b64,
        payload_iv_b64: sealed.payload_iv_b64,
      },
    });
    await request('GET', `/api/agents/${recipient.handle}/fabric/inbox`, { token: recipient.token });
    const fetch = (blob_id: string, token = recipient.token, handle = recipient.handle) =>
      request('POST', `/api/agents/${handle}/fabric/fetch`, { token, body: { blob_id } });
    await fetch(sent.body.id as string, sender.token, sender.handle);
    await fetch(sent.body.id as string);
    await fetch(sent.body.id as string);
    await fetch('00000000-0000-0000-0000-000000000000');
    const revoke = () =>
      request('PATCH', '/api/v1/fabric-grants', { token: key, body: { grant_id: created.body.grant_id } });
    expect((await revoke()).body.receipt).not.toBeNull();
    // Revoked again: the answer's receipt is null, which the document must allow.
    expect((await revoke()).body.receipt).toBeNull();

    const { fragment: _fragment, ...parts } = await sealForLink(new TextEncoder().encode('shared'));
    const link = await request('POST', '/api/v1/links', {
      token: key,
      body: { ...parts, size_bytes: 6, content_type: 'text/plain' },
    });
    await request('GET', '/api/v1/links', { token: key });
    await request('GET', `/s/${link.body.link_id}/info`);
    const burn = () => request('POST', `/api/v1/links/${link.body.link_id}/burn`, { token: key });
    expect((await burn()).body.receipt).not.toBeNull();
    expect((await burn()).body.receipt).toBeNull();
    await request('GET', `/api/v1/links/${link.body.link_id}`, { token: key });

    const capsule = await request('POST', '/v1/capsules', { token: key, body: { name: 'Walk room' } });
    await request('GET', `/v1/capsules/${capsule.body.id}`, { token: key });
    await request('POST', `/v1/capsules/${capsule.body.id}/revoke`, { token: key });
    await request('POST', `/v1/capsules/${capsule.body.id}/revoke`, { token: key });
    await request('GET', '/v1/capsules/cap_none', { token: key });
    await request('POST', '/access/verify', { body: { proof_id: sent.body.receipt.receipt_id } });
    await request('POST', '/access/verify', { body: { proof_id: 'rcpt_none' } });
    await request('GET', '/api/v1/agents', { token: 'ndp_nothing' });
    await request('POST', '/api/v1/governance/grant', {
      token: key,
      body: 'agent=a',
      headers: { 'content-type': 'text/plain' },
    });

    // The walk met the answers it is about: a null receipt, each error status, validation's 400s.
    for (const seen of [
      'PATCH /api/v1/fabric-grants 200',
      'POST /api/v1/links/{link_id}/burn 200',
      'GET /api/agents/{handle}/fabric/inbox 400',
      'GET /api/agents/{handle}/fabric/keys/{kid} 400',
      'GET /api/v1/proofs 400',
      'POST /api/agents/{handle}/read 403',
      'POST /api/agents/{handle}/fabric/fetch 403',
      'POST /api/agents/{handle}/fabric/fetch 410',
      'POST /api/v1/governance/grant 415',
    ]) {
      expect(checked).toContain(seen);
    }
  });
});

describe('what the document states', () => {
  it('every route that validates path parameters, a query or a body documents 400', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body as Doc;
    for (const r of ROUTES) {
      if (!r.params && !r.query && !r.body) continue;
      expect(Object.keys(doc.paths[r.path]![r.method]!.responses), `${r.method} ${r.path}`).toContain('400');
    }
  });

  it('a nullable reference allows null: no allOf holds a member typed null', async () => {
    const text = JSON.stringify((await h.request('GET', '/openapi.json')).body);
    const doc = JSON.parse(text) as Doc & { components: { schemas: Record<string, any> } };
    const walk = (node: unknown, at: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const allOf = (node as { allOf?: { type?: unknown }[] }).allOf;
      for (const member of allOf ?? []) {
        expect([member.type].flat(), at).not.toContain('null');
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    for (const [schema, field] of [
      ['FabricGrantRevoked', 'receipt'],
      ['LinkEnded', 'receipt'],
      ['Retrieval', 'audit'],
    ] as const) {
      expect(doc.components.schemas[schema].properties[field].anyOf, `${schema}.${field}`).toEqual([
        { $ref: expect.stringMatching(/^#\/components\/schemas\//) },
        { type: 'null' },
      ]);
    }
  });

  it('limits the server enforces are in the schemas: lengths, key counts', async () => {
    const { components } = (await h.request('GET', '/openapi.json')).body as {
      components: { schemas: Record<string, any> };
    };
    const send = components.schemas.SendRequest.properties;
    expect(send.wrapped_key_b64).toMatchObject({ maxLength: 1024 });
    expect(send.payload_iv_b64).toMatchObject({ maxLength: 64 });
    for (const request of ['ReadRequest', 'GrantRequest', 'ComputeRequest']) {
      expect(components.schemas[request].properties.where, request).toMatchObject({ maxProperties: 16 });
    }
    expect(components.schemas.FetchRequest.properties.blob_id).toEqual({ type: 'string', format: 'uuid' });
  });
});
