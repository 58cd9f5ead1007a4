// svc_redact through a real MCP client: a clean copy of a folder whose files the read gate
// treats three ways (allowed, clean copy only, denied): the first two are copied with tokens, the
// denied one is neither read nor copied and is named as protected; the copy's own place is decided
// as a write; no value is ever in the answer.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { GateCheck } from '../../src/backend/gate-check.ts';
import { finderOf } from '../../src/backend/scan.ts';
import { parseCsv } from '../../src/backend/csv.ts';
import { createMcpServer } from '../../src/tools/server.ts';

const home = tempDir('svc-redact-tool-');
const project = join(home.dir, 'shop');
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// Built at test time: the repository holds no credential-looking literal.
const awsKey = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const inDotEnv = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 7)}@${pick('uvwxyzabc', 6)}-mail.io`;
let service: Service;
let gate: GateCheck;
let mcp: Client;

beforeAll(async () => {
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.svc'), { recursive: true });
  mkdirSync(join(project, 'exports'), { recursive: true });
  writeFileSync(
    join(project, '.svc', 'rules.json'),
    JSON.stringify([
      { effect: 'deny', paths: ['.env'] },
      { effect: 'redact', paths: ['exports/'], reason: 'customer data' },
      { effect: 'deny', paths: ['locked/'], actions: ['write'] },
    ]),
  );
  writeFileSync(join(project, '.env'), `AWS_ACCESS_KEY_ID=${inDotEnv}\n`);
  writeFileSync(join(project, 'exports', 'customers.csv'), `id,email,note\n1,${email},"key ${awsKey}"\n`);
  writeFileSync(join(project, 'app.json'), JSON.stringify({ owner: email }));
  service = new Service({ dataDir: join(home.dir, 'svc') });
  gate = new GateCheck({
    dataDir: service.dataDir,
    env: { HOME: home.dir },
    core: () => service.ctx,
    watch: false,
  });
  const server = createMcpServer(() => ({
    invoker: service.invoker,
    ownerBearer: undefined,
    agentBearer: undefined,
    credentialSource: 'environment',
    gate,
    find: async () => finderOf(service.ctx),
  }));
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  mcp = new Client({ name: 'redact', version: '1' });
  await mcp.connect(c);
});
afterAll(async () => {
  await mcp.close();
  await gate.close();
  service.close();
  home.cleanup();
});

const errorText = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { text: string }[])[0]!.text;

describe('svc_redact', () => {
  it('copies what the agent may read or may read only clean, never the denied file, and says no value', async () => {
    const progress: number[] = [];
    const result = await mcp.callTool(
      { name: 'svc_redact', arguments: { path: '.', cwd: project, out: '../shop-clean' } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const out = join(home.dir, 'shop-clean');
    expect(result.structuredContent).toEqual({
      out,
      kind: 'folder',
      files_redacted: 2,
      files_copied: 1,
      values_replaced: 3,
      tokens_by_type: { AWS_ACCESS_KEY: 1, EMAIL: 1 },
      redacted_files: ['app.json', 'exports/customers.csv'],
      skipped: { protected: 1 },
      protected_files: ['.env'],
      copy_id: null,
      next: expect.stringContaining(`read the copy in ${out}`),
    });
    expect(progress.at(-1)).toBe(3);
    expect(existsSync(join(out, '.env'))).toBe(false);
    expect(parseCsv(readFileSync(join(out, 'exports', 'customers.csv'), 'utf8'))).toEqual([
      { id: 1, email: '[EMAIL_1]', note: 'key [AWS_ACCESS_KEY_1]' },
    ]);
    expect(JSON.parse(readFileSync(join(out, 'app.json'), 'utf8'))).toEqual({ owner: '[EMAIL_1]' });
    const everything = JSON.stringify(result);
    for (const value of [awsKey, inDotEnv, email]) expect(everything).not.toContain(value);
  });

  it('copies a file that only a clean copy of may be read', async () => {
    const result = await mcp.callTool({
      name: 'svc_redact',
      arguments: { path: 'exports/customers.csv', cwd: project, out: '../single' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      out: join(home.dir, 'single', 'customers.csv'),
      kind: 'file',
      values_replaced: 2,
    });
  });

  it('keeps the mapping sealed only when asked, and the answer names it without a value', async () => {
    const result = await mcp.callTool({
      name: 'svc_redact',
      arguments: { path: 'app.json', cwd: project, out: '../kept', keep_mapping: true },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const data = result.structuredContent as { copy_id: string; next: string };
    expect(data.copy_id).toMatch(/^copy_/);
    expect(data.next).toContain(`svc redact reverse ${data.copy_id}`);
    expect(JSON.stringify(result)).not.toContain(email);
    const row = await service.ctx.store.get<{ sealed_mapping: string; tokens: number }>(
      'SELECT sealed_mapping, tokens FROM clean_copies WHERE copy_id = ?',
      data.copy_id,
    );
    expect(row?.tokens).toBe(1);
    expect(row?.sealed_mapping).not.toContain(email);
    expect(Buffer.from(row!.sealed_mapping, 'base64').toString('latin1')).not.toContain(email);
  });

  it('writes no copy where the gate denies writing', async () => {
    const result = await mcp.callTool({
      name: 'svc_redact',
      arguments: { path: 'app.json', cwd: project, out: 'locked' },
    });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toMatch(/forbidden/);
    expect(existsSync(join(project, 'locked'))).toBe(false);
  });

  it('a path that is not there is a tool error that says what to do', async () => {
    const result = await mcp.callTool({ name: 'svc_redact', arguments: { path: 'nope', cwd: project } });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toContain('nothing to copy at');
  });
});
