// svc_code_advise and svc_code_patch through a real MCP client on an in-process server: advice on
// a diff (rules, protected files, a credential written into code) that records nothing; submit
// refused for a protected file with the gate's audit row; an `ask` rule accepted, declined, or
// unsupported by the client; approve writes the files after the person confirms, a patch that no
// longer applies writes nothing; reject; and a server without a gate refuses (fail closed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { GateCheck } from '../../src/backend/gate-check.ts';
import type { ServiceError } from '../../src/backend/errors.ts';
import { createMcpServer } from '../../src/tools/server.ts';
import type { Elicit } from './computer.ts';

const home = tempDir('svc-code-tool-');
const project = join(home.dir, 'shop');
let service: Service;
let gate: GateCheck;
let ownerKey: string;
let agentToken: string;
const asked: string[] = [];

type Structured = Record<string, any>;

async function client(elicit: Elicit, options: { gate?: boolean } = {}) {
  const server = createMcpServer(() => ({
    invoker: service.invoker,
    ownerBearer: `Bearer ${ownerKey}`,
    agentBearer: `Bearer ${agentToken}`,
    credentialSource: 'environment',
    gate: options.gate === false ? undefined : gate,
  }));
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const mcp = new Client(
    { name: 'code', version: '1' },
    { capabilities: elicit === 'unsupported' ? {} : { elicitation: {} } },
  );
  if (elicit !== 'unsupported') {
    mcp.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      if (elicit === 'accept') return { action: 'accept', content: { confirm: true } };
      return { action: elicit };
    });
  }
  await mcp.connect(c);
  return async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: args });
    return {
      error: result.isError === true,
      text: (result.content as { text: string }[]).map((c) => c.text).join('\n'),
      data: (result.structuredContent ?? {}) as Structured,
    };
  };
}

const chainLengths = async () => ({
  service: await service.ctx.chains.length('service'),
  audit: await service.ctx.chains.length('audit'),
});

const CHANGE_APP = `--- a/src/app.ts
+++ b/src/app.ts
@@ -1,2 +1,2 @@
 export const name = 'shop';
-export const port = 80;
+export const port = 8080;
`;
const CHANGE_CONFIG = `--- a/config/app.yml
+++ b/config/app.yml
@@ -1 +1,2 @@
 mode: test
+debug: true
`;
const CHANGE_SECRET = `--- /dev/null
+++ b/secrets/key.txt
@@ -0,0 +1 @@
+nothing
`;
const ADD_CREDENTIAL = `--- /dev/null
+++ b/src/client.ts
@@ -0,0 +1,3 @@
+const base = 'https://api.example.test';
+const API_KEY = "q7Zr2VbN9xKp4LmW8sTd3FhJ";
+const password = process.env.DB_PASSWORD_VALUE_FROM_ENV;
`;

beforeAll(async () => {
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.svc'), { recursive: true });
  mkdirSync(join(project, 'src'));
  mkdirSync(join(project, 'config'));
  writeFileSync(
    join(project, '.svc', 'rules.json'),
    JSON.stringify([
      { effect: 'deny', paths: ['secrets/'], reason: 'customer keys' },
      { effect: 'ask', paths: ['config/*.yml'], actions: ['write'], reason: 'deploy settings' },
    ]),
  );
  writeFileSync(join(project, 'src', 'app.ts'), "export const name = 'shop';\nexport const port = 80;\n");
  writeFileSync(join(project, 'config', 'app.yml'), 'mode: test\n');
  service = new Service({ dataDir: join(home.dir, 'svc') });
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  ownerKey = org.api_key;
  agentToken = (
    await service.invoke(ops.createGrant, `Bearer ${ownerKey}`, { agent: 'Coder', columns: ['id'] })
  ).grant_token;
  gate = new GateCheck({
    dataDir: service.dataDir,
    env: { HOME: home.dir },
    core: () => service.ctx,
    watch: false,
  });
});
afterAll(async () => {
  await gate.close();
  service.close();
  home.cleanup();
});

describe('svc_code_advise', () => {
  it('names the rules, the protected files, the asks and a credential written into code; records nothing', async () => {
    const call = await client('accept');
    const before = await chainLengths();
    const advised = await call('svc_code_advise', {
      diff: CHANGE_APP + CHANGE_CONFIG + CHANGE_SECRET + ADD_CREDENTIAL,
      cwd: project,
    });
    expect(advised.error, advised.text).toBe(false);
    expect(advised.data.paths.map((p: Structured) => [p.path, p.action, p.outcome, p.protected])).toEqual([
      ['src/app.ts', 'write', 'allowed', false],
      ['config/app.yml', 'write', 'ask', false],
      ['secrets/key.txt', 'write', 'denied', true],
      ['src/client.ts', 'write', 'allowed', false],
    ]);
    expect(advised.data.paths[2].covering).toEqual([
      expect.objectContaining({ effect: 'deny', level: 'computer', reason: 'customer keys' }),
    ]);
    expect(advised.data).toMatchObject({ protected: ['secrets/key.txt'], ask: ['config/app.yml'] });
    // The environment read is a reference, not a secret; the value itself never comes back.
    expect(advised.data.credentials).toEqual([
      {
        path: 'src/client.ts',
        line: 2,
        column: 18,
        type: 'SECRET',
        rule: 'generic-secret-assignment',
        confidence: expect.any(Number),
        preview: '************ (24 chars)',
      },
    ]);
    expect(advised.text).not.toContain('q7Zr2VbN');
    expect(advised.data.next).toMatch(/^do not change secrets\/key\.txt/);
    expect(advised.data.next).toContain('src/client.ts:2');
    expect(await chainLengths()).toEqual(before);
  });

  it('a path is advised for reading; a diff that is all clear says to submit it', async () => {
    const call = await client('accept');
    const path = await call('svc_code_advise', { path: 'secrets/key.txt', cwd: project });
    expect(path.data.paths[0]).toMatchObject({ action: 'read', outcome: 'denied', protected: true });
    const clear = await call('svc_code_advise', { diff: CHANGE_APP, cwd: project });
    expect(clear.data.next).toContain('svc_code_patch action "submit"');
    expect((await call('svc_code_advise', { cwd: project })).error).toBe(true);
  });
});

describe('svc_code_patch', () => {
  it('a protected file is refused at submit, naming the rule and the audit record; nothing is queued', async () => {
    const call = await client('accept');
    const refused = await call('svc_code_patch', {
      action: 'submit',
      summary: 'add a key',
      diff: CHANGE_APP + CHANGE_SECRET,
      cwd: project,
    });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/^forbidden: /);
    expect(refused.text).toContain('rules.json#1');
    expect(refused.text).toMatch(/audit record aud_\d+_[0-9a-f]{32}/);
    const listed = await call('svc_code_patch', { action: 'list' });
    expect(listed.data.count).toBe(0);
  });

  it('the service refuses a protected file at submit too, with a receipt (an agent calling the API directly)', async () => {
    const error = await service
      .invoke(ops.submitPatch, `Bearer ${agentToken}`, {
        summary: 'x',
        diff: CHANGE_SECRET,
        project_root: project,
      })
      .then(
        () => undefined,
        (e: unknown) => e as ServiceError,
      );
    expect(error).toMatchObject({
      code: 'forbidden',
      details: { receipt_id: expect.stringMatching(/^rcpt_/) },
    });
    const receipt = await service.invoke(ops.getProof, undefined, { id: String(error?.details.receipt_id) });
    expect(receipt.payload).toMatchObject({ kind: 'patch.submit.deny', reason: 'protected' });
  });

  it('an `ask` rule: a client without forms is refused and told why, a declined one too, an accepted one queues', async () => {
    const args = { action: 'submit', summary: 'debug on', diff: CHANGE_CONFIG, cwd: project };
    const unsupported = await (await client('unsupported'))('svc_code_patch', args);
    expect(unsupported.error).toBe(true);
    expect(unsupported.text).toContain('this client shows no confirmation forms');
    expect(unsupported.text).toMatch(/audit record aud_/);
    const declined = await (await client('decline'))('svc_code_patch', args);
    expect(declined.error).toBe(true);
    expect(declined.text).toContain('the person declined');
    asked.length = 0;
    const call = await client('accept');
    const queued = await call('svc_code_patch', args);
    expect(queued.error, queued.text).toBe(false);
    expect(asked).toEqual([expect.stringContaining('deploy settings')]);
    expect(queued.data).toMatchObject({
      action: 'submit',
      status: 'queued',
      patch_id: expect.stringMatching(/^patch_[0-9a-f]{12}$/),
      receipt_id: expect.stringMatching(/^rcpt_/),
      gate_receipt_id: expect.stringMatching(/^aud_/),
    });
    expect(readFileSync(join(project, 'config', 'app.yml'), 'utf8')).toBe('mode: test\n');
  });

  it('the owner lists, then approves: the person confirms, the files are written, the approval is receipted', async () => {
    const call = await client('accept');
    const submitted = await call('svc_code_patch', {
      action: 'submit',
      summary: 'port 8080',
      diff: CHANGE_APP,
      cwd: project,
    });
    const listed = await call('svc_code_patch', { action: 'list' });
    expect(listed.data.patches.map((p: Structured) => p.summary)).toEqual(['debug on', 'port 8080']);
    expect(listed.text).toContain('+export const port = 8080;');
    asked.length = 0;
    const approved = await call('svc_code_patch', { action: 'approve', patch_id: submitted.data.patch_id });
    expect(approved.error, approved.text).toBe(false);
    expect(asked).toEqual([expect.stringContaining(`Apply patch ${submitted.data.patch_id}`)]);
    expect(readFileSync(join(project, 'src', 'app.ts'), 'utf8')).toContain('port = 8080');
    const receipt = await service.invoke(ops.verifyProof, undefined, { proof_id: approved.data.receipt_id });
    expect(receipt, JSON.stringify(receipt)).toMatchObject({ authentic: true, kind: 'patch.approve' });
    const again = await call('svc_code_patch', { action: 'approve', patch_id: submitted.data.patch_id });
    expect(again.text).toMatch(/^conflict: .*applied already/);
  });

  it('without the person\u2019s confirmation nothing is applied', async () => {
    const [queued] = (await (await client('accept'))('svc_code_patch', { action: 'list' })).data.patches;
    for (const elicit of ['unsupported', 'cancel', 'decline'] as const) {
      const answer = await (
        await client(elicit)
      )('svc_code_patch', { action: 'approve', patch_id: queued.patch_id });
      // The `ask` rule on config/app.yml asks first; unanswered, nothing goes further.
      expect(answer.error).toBe(true);
      expect(answer.text).toMatch(/was not done|declined/);
    }
    expect((await (await client('accept'))('svc_code_patch', { action: 'list' })).data.count).toBe(1);
    // A patch no rule asks about still needs the person: an agent may hold the owner's key.
    const notes = await (
      await client('accept')
    )('svc_code_patch', {
      action: 'submit',
      summary: 'notes',
      diff: '--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+notes\n',
      cwd: project,
    });
    for (const elicit of ['unsupported', 'cancel', 'decline'] as const) {
      const answer = await (
        await client(elicit)
      )('svc_code_patch', { action: 'approve', patch_id: notes.data.patch_id });
      expect(answer.text).toContain(`${notes.data.patch_id} stays queued`);
    }
    expect(existsSync(join(project, 'NOTES.md'))).toBe(false);
    await (
      await client('accept')
    )('svc_code_patch', { action: 'reject', patch_id: notes.data.patch_id });
    expect(readFileSync(join(project, 'config', 'app.yml'), 'utf8')).toBe('mode: test\n');
  });

  it('a patch that no longer applies writes nothing and stays queued; reject ends it', async () => {
    const call = await client('accept');
    const [queued] = (await call('svc_code_patch', { action: 'list' })).data.patches;
    writeFileSync(join(project, 'config', 'app.yml'), 'mode: live\n');
    const failed = await call('svc_code_patch', { action: 'approve', patch_id: queued.patch_id });
    expect(failed.error).toBe(true);
    expect(failed.text).toMatch(/^conflict: .*does not apply, nothing was written/);
    expect(readFileSync(join(project, 'config', 'app.yml'), 'utf8')).toBe('mode: live\n');
    const rejected = await call('svc_code_patch', {
      action: 'reject',
      patch_id: queued.patch_id,
      reason: 'made against an old config',
    });
    expect(rejected.data).toMatchObject({ status: 'rejected', receipt_id: expect.stringMatching(/^rcpt_/) });
    expect((await call('svc_code_patch', { action: 'list' })).data.count).toBe(0);
    expect((await call('svc_code_patch', { action: 'list', status: 'rejected' })).data.count).toBe(2);
  });

  it('a server without a gate of its own touches nothing: fail closed', async () => {
    const call = await client('accept', { gate: false });
    for (const [name, args] of [
      ['svc_code_advise', { diff: CHANGE_APP, cwd: project }],
      ['svc_code_patch', { action: 'submit', summary: 'x', diff: CHANGE_APP, cwd: project }],
    ] as const) {
      const refused = await call(name, args);
      expect(refused.error).toBe(true);
      expect(refused.text).toContain('no read gate of its own');
    }
  });
});
