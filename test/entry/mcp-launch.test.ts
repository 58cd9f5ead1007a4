// How `svc mcp` starts: from its bundle only while every file the bundle was built from is
// unchanged, from the sources otherwise (a bundle then built in the background), answering the
// same either way. Runs the real server of a copy of svc, whose sources the tests edit, with a data
// dir of its own, through the MCP SDK's own client.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, realpathSync, symlinkSync, watch } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/entry/hook-launch.js';
import { tempDir } from '../helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('svc mcp of a copy of svc', () => {
  const tmp = tempDir('svc-mcp-launch-');
  afterAll(() => tmp.cleanup());
  const copy = join(tmp.dir, 'svc');
  for (const part of ['bin', 'src', 'package.json', 'tsconfig.json']) {
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
  const serverFile = join(copy, 'src', 'tools', 'server.ts');
  const original = readFileSync(serverFile, 'utf8');

  let n = 0;
  let svcHome = '';
  const env = (more: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    HOME: tmp.dir,
    SVC_HOME: svcHome,
    SVC_VAULT: 'file',
    ...more,
  });
  beforeEach(() => {
    svcHome = join(tmp.dir, `svc-home-${n++}`);
    writeFileSync(serverFile, original);
  });

  const build = () =>
    JSON.parse(
      execFileSync(process.execPath, [join(copy, 'bin', 'svc.js'), 'mcp', '--bundle', '--json'], {
        env: env(),
        encoding: 'utf8',
      }),
    ) as { dir: string; cache_accepted: boolean };
  const manifestOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const mcpDir = () => join(svcHome, 'mcp', readdirSync(join(svcHome, 'mcp'))[0]!);

  /**
   * The server's version as initialize gives it, its tool listing, and its answers to a call it
   * refuses for its arguments (svc's shape check) and one it refuses for a missing credential.
   */
  async function startAndAsk(more?: Record<string, string>) {
    const client = new Client({ name: 'svc-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(copy, 'bin', 'svc.js'), 'mcp'],
        env: env(more),
        stderr: 'ignore',
      }),
    );
    try {
      const version = client.getServerVersion()?.version;
      const { tools } = await client.listTools();
      const badShape = await client.callTool({
        name: 'svc_decide',
        arguments: JSON.parse('{"columns":["a"],"__proto__":{"x":1}}') as Record<string, unknown>,
      });
      const noGrant = await client.callTool({ name: 'svc_decide', arguments: { columns: ['a'] } });
      return { version, tools, badShape, noGrant };
    } finally {
      await client.close();
    }
  }
  /** The server's version reads 0.1.0; an edit of the sources makes it 0.1.9 (the same length). */
  const editSources = () => writeFileSync(serverFile, original.replace("'0.1.0'", "'0.1.9'"));
  /** Resolves once the background build the server asked for has ended (its builder removes the marker). */
  function buildEnded(dir: string): Promise<void> {
    const ended = () => existsSync(join(dir, 'manifest.json')) && !existsSync(join(dir, 'building'));
    return new Promise((resolve, reject) => {
      const watcher = watch(dir, () => {
        if (ended()) finish();
      });
      const deadline = setTimeout(() => finish(new Error('no build ended within 30 s')), 30_000);
      function finish(error?: Error) {
        watcher.close();
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve();
      }
      if (ended()) finish();
    });
  }

  it('starts from the bundle while the files it was built from are unchanged, and answers as the sources do', async () => {
    const { dir, cache_accepted } = build();
    expect(cache_accepted).toBe(true);
    const bundled = await startAndAsk();
    expect(bundled.version).toBe('0.1.0');
    // The same answers from the sources: the listing, and the errors svc's own modules raise (loaded
    // from the sources beside the bundle, so that the server still recognizes them).
    expect(await startAndAsk({ SVC_MCP_BUNDLE: 'off' })).toEqual(bundled);
    expect(bundled.tools.length).toBeGreaterThan(30);
    expect(JSON.stringify(bundled.badShape)).toContain('invalid_request: ');
    expect(JSON.stringify(bundled.noGrant)).toContain('SVC_AGENT_TOKEN');
    // An edit that the bundle's copy of its sources holds too is one the bundle is taken to have:
    // the answer still comes from the bundle, which shows that the server started from it.
    editSources();
    const copyFile = join(dir, manifestOf(dir).sources.file);
    const bytes = readFileSync(copyFile);
    bytes.write("'0.1.9'", bytes.indexOf("SERVER_VERSION = '0.1.0'") + 'SERVER_VERSION = '.length);
    writeFileSync(copyFile, bytes);
    expect((await startAndAsk()).version).toBe('0.1.0');
  });

  it('holds the start path only: svc modules beside it and its tools load from the sources', () => {
    const { dir } = build();
    const manifest = manifestOf(dir);
    const code = readFileSync(join(dir, manifest.script.file), 'utf8');
    // By absolute path (ajv's generated code names its runtime in strings, never required here).
    const required = [...code.matchAll(/\brequire\("(\/[^"]+)"\)/g)].map((m) => m[1]!);
    expect(required).toContain(join(copy, 'src', 'backend', 'errors.ts'));
    expect(required.every((id) => id.startsWith(join(copy, 'src')))).toBe(true);
    const files = manifest.sources.files.map((f) => f.path);
    expect(files).toContain(serverFile);
    expect(files).toContain(join(copy, 'src', 'tools', 'tool-list.json'));
    expect(files).not.toContain(join(copy, 'src', 'tools', 'index.ts'));
  });

  it('with a source edited since the build, answers from the sources and builds a new bundle', async () => {
    const { dir } = build();
    const before = manifestOf(dir).script.file;
    editSources();
    expect((await startAndAsk()).version).toBe('0.1.9');
    await buildEnded(dir);
    expect(manifestOf(dir).script.file).not.toBe(before);
    expect((await startAndAsk()).version).toBe('0.1.9');
  });

  it('without a bundle, answers from the sources and builds one for the next start', async () => {
    expect((await startAndAsk()).version).toBe('0.1.0');
    await buildEnded(mcpDir());
    expect(manifestOf(mcpDir())).toMatchObject({ root: copy, node: process.version });
  });

  it('with SVC_MCP_BUNDLE=off, answers from the sources and builds nothing', async () => {
    editSources();
    expect((await startAndAsk({ SVC_MCP_BUNDLE: 'off' })).version).toBe('0.1.9');
    // A build is asked for once the server is connected, long before its first answer.
    expect(existsSync(join(svcHome, 'mcp'))).toBe(false);
  });

  it('with a broken manifest, answers all the same and builds a whole bundle again', async () => {
    const { dir } = build();
    writeFileSync(join(dir, 'manifest.json'), '{');
    expect((await startAndAsk()).version).toBe('0.1.0');
    await buildEnded(dir);
    expect(manifestOf(dir).root).toBe(copy);
  });
});
