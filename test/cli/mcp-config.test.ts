// `svc mcp --print-config`: each client's format carries the store variables set where it was
// printed (SVC_HOME made absolute, SVC_VAULT), so the server the client starts uses that store;
// nothing when none is set, and never a credential.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_CLIENTS, mcpConfig, mcpLaunch, type McpClient } from '../../src/cli/mcp-config.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, runSvc } from '../e2e/procs.ts';

const STORE = { SVC_HOME: 'stores/main', SVC_VAULT: 'file', SVC_API_KEY: 'ndp_not_to_be_printed' };
const WANTED = { SVC_HOME: resolve('stores/main'), SVC_VAULT: 'file' };

/** The words of a shell command line, as the shell splits them. */
const words = (line: string) =>
  execFileSync('/bin/sh', ['-c', `set -- ${line}; printf '%s\\n' "$@"`], { encoding: 'utf8' })
    .split('\n')
    .slice(0, -1);

/** What each client's text says: the command, its arguments and the environment it sets. */
const READERS: Record<McpClient, (text: string) => { command: string; args: string[]; env?: object }> = {
  'claude-code': (text) => {
    const all = words(text);
    expect(all.slice(0, 5)).toEqual(['claude', 'mcp', 'add', '--scope', 'user']);
    const cut = all.indexOf('--');
    const options = all.slice(6, cut);
    const env = Object.fromEntries(
      options.flatMap((word, i) => (options[i - 1] === '-e' ? [word.split(/=(.*)/s).slice(0, 2)] : [])),
    );
    const [command, ...args] = all.slice(cut + 1);
    return { command: command!, args, ...(Object.keys(env).length ? { env } : {}) };
  },
  'claude-desktop': (text) => JSON.parse(text).mcpServers.svc,
  cursor: (text) => JSON.parse(text).mcpServers.svc,
  gemini: (text) => JSON.parse(text).mcpServers.svc,
  vscode: (text) => {
    const { type, ...entry } = JSON.parse(text).servers.svc;
    expect(type).toBe('stdio');
    return entry;
  },
  codex: (text) => {
    const [header, ...lines] = text.split('\n');
    expect(header).toBe('[mcp_servers.svc]');
    // The inline table as JSON: its keys quoted, `=` as `:`.
    const values = Object.fromEntries(
      lines.map((line) => {
        const [, key, value] = /^(\w+) = (.*)$/.exec(line)!;
        const json = key === 'env' ? value!.replace(/(\w+) = /g, '"$1": ') : value!;
        return [key, JSON.parse(json)];
      }),
    );
    return values as { command: string; args: string[]; env?: object };
  },
};

describe.each(MCP_CLIENTS.map((client) => ({ client })))('mcpConfig($client)', ({ client }) => {
  it('names the store variables set here, SVC_HOME absolute, and no credential', () => {
    const text = mcpConfig(client, STORE);
    expect(READERS[client](text)).toEqual({ ...mcpLaunch(), env: WANTED });
    expect(text).not.toContain('SVC_API_KEY');
    expect(text).not.toContain(STORE.SVC_API_KEY);
  });

  it('sets no environment when no store variable is set', () => {
    expect(READERS[client](mcpConfig(client, { SVC_API_KEY: 'ndp_x', SVC_HOME: '  ' }))).toEqual(mcpLaunch());
  });
});

describe('svc mcp --print-config', () => {
  const tmp = tempDir('svc-mcp-config-');
  afterAll(() => tmp.cleanup());

  it('prints the store the command ran on, a relative SVC_HOME made absolute from its folder', async () => {
    mkdirSync(join(tmp.dir, 'work'));
    const env = childEnv({ SVC_HOME: 'here-store', SVC_VAULT: 'file', HOME: tmp.dir });
    const run = await runSvc(
      ['mcp', '--print-config', '--client', 'cursor', '--json'],
      env,
      30_000,
      join(tmp.dir, 'work'),
    );
    expect(run.code, run.stderr).toBe(0);
    const { config } = run.json() as { config: string };
    expect(JSON.parse(config).mcpServers.svc.env).toEqual({
      SVC_HOME: join(tmp.dir, 'work', 'here-store'),
      SVC_VAULT: 'file',
    });
  });
});
