// `svc hook install --client C`: the real command on settings files as users have them, for every
// client. Merged, never clobbering; a second run changes nothing; uninstall gives back the file byte
// for byte; a file it cannot read is left alone; and the command it writes really runs the hook.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const tmp = tempDir('svc-hook-install-');
afterAll(() => tmp.cleanup());
const home = join(tmp.dir, 'home');
const COMMAND = /^'\/.+' '\/.+bin\/svc\.js' hook (claude|cursor|gemini|codex)$/;

interface Client {
  name: 'claude' | 'cursor' | 'gemini' | 'codex';
  /** The settings file, from the project's folder. */
  file: string;
  /** Settings as a user might have them, formatted their way. */
  original: string;
  /** Each event svc hooks, with its matcher (null: entries are bare handlers). */
  events: Record<string, string | null>;
  /** An event in the client's format that a rule denying .env must deny, and how to read the denial. */
  denied: (project: string) => object;
  isDenial: (stdout: string) => boolean;
}

const clients: Client[] = [
  {
    name: 'claude',
    file: '.claude/settings.json',
    original: JSON.stringify(
      {
        permissions: { allow: ['Bash(ls)'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'other-tool check' }] }],
          PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'logger' }] }],
        },
      },
      null,
      4,
    ),
    events: { PreToolUse: 'Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash|mcp__.*' },
    denied: (cwd) => ({
      hook_event_name: 'PreToolUse',
      cwd,
      tool_name: 'Read',
      tool_input: { file_path: '.env' },
    }),
    isDenial: (out) => JSON.parse(out).hookSpecificOutput.permissionDecision === 'deny',
  },
  {
    name: 'cursor',
    file: '.cursor/hooks.json',
    original:
      '{\n\t"version": 1,\n\t"hooks": {\n\t\t"afterFileEdit": [{ "command": "./format.sh" }],\n\t\t"beforeShellExecution": [\n\t\t\t{ "command": "audit.sh" }\n\t\t]\n\t}\n}\n',
    events: { beforeReadFile: null, beforeShellExecution: null, beforeMCPExecution: null },
    denied: (root) => ({
      hook_event_name: 'beforeReadFile',
      workspace_roots: [root],
      file_path: join(root, '.env'),
    }),
    isDenial: (out) => JSON.parse(out).permission === 'deny',
  },
  {
    name: 'gemini',
    file: '.gemini/settings.json',
    original: `{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "hooksConfig": { "enabled": true },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [{ "name": "lint", "type": "command", "command": "lint.sh", "timeout": 5000 }]
      }
    ]
  }
}
`,
    events: {
      BeforeTool:
        '^(read_file|read_many_files|write_file|replace|grep_search|search_file_content|glob|list_directory|run_shell_command|mcp_.*|discovered_tool_.*)$',
    },
    denied: (cwd) => ({
      hook_event_name: 'BeforeTool',
      cwd,
      tool_name: 'read_file',
      tool_input: { file_path: '.env' },
    }),
    isDenial: (out) => JSON.parse(out).decision === 'deny',
  },
  {
    name: 'codex',
    file: '.codex/hooks.json',
    original: '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify.sh"}]}]}}',
    events: { PreToolUse: '^(Bash|apply_patch|Read|mcp__.*)$' },
    denied: (cwd) => ({
      hook_event_name: 'PreToolUse',
      cwd,
      tool_name: 'Bash',
      tool_input: { command: 'cat .env' },
    }),
    isDenial: (out) => JSON.parse(out).hookSpecificOutput.permissionDecision === 'deny',
  },
];

let n = 0;
function project(client: Client, settings?: string) {
  const dir = join(tmp.dir, `p${n++}`);
  const file = join(dir, client.file);
  mkdirSync(join(file, '..'), { recursive: true });
  if (settings !== undefined) writeFileSync(file, settings);
  return { dir, file };
}

function svc(cwd: string, client: string, ...args: string[]) {
  return svcWith({}, cwd, 'hook', 'install', '--client', client, ...args);
}

/** `svc ARGS` in `cwd` with a bare environment and these variables added. */
function svcWith(variables: Record<string, string>, cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: join(tmp.dir, 'codex-home'), ...variables },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** svc's entries in each event's list of the settings. */
const oursIn = (settings: any, client: Client) =>
  Object.keys(client.events).map((event) =>
    (settings.hooks[event] as any[]).filter((e) => JSON.stringify(e).includes(`svc.js' hook ${client.name}`)),
  );

describe.each(clients)('svc hook install --client $name', (client) => {
  it('merges into existing settings, keeps everything else, and uninstall gives back the file byte for byte', () => {
    const p = project(client, client.original);
    const run = svc(p.dir, client.name);
    expect(run.code, run.stderr).toBe(0);
    const before = JSON.parse(client.original);
    const installed = JSON.parse(readFileSync(p.file, 'utf8'));
    for (const [key, value] of Object.entries(before))
      if (key !== 'hooks') expect(installed[key], key).toEqual(value);
    for (const [event, list] of Object.entries(before.hooks as Record<string, unknown[]>))
      expect(installed.hooks[event].slice(0, list.length), event).toEqual(list);
    for (const [i, [, matcher]] of Object.entries(client.events).entries()) {
      const [entry] = oursIn(installed, client)[i]!;
      const command = matcher === null ? entry.command : entry.hooks[0].command;
      expect(command).toMatch(COMMAND);
      expect(entry).toEqual(
        matcher === null ? { command } : { matcher, hooks: [{ type: 'command', command }] },
      );
    }
    expect(svc(p.dir, client.name, '--uninstall').code).toBe(0);
    expect(readFileSync(p.file, 'utf8')).toBe(client.original);
  });

  it('is idempotent: a second install leaves the file byte for byte as the first wrote it', () => {
    const p = project(client, client.original);
    svc(p.dir, client.name);
    const first = readFileSync(p.file, 'utf8');
    const again = svc(p.dir, client.name, '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false });
    expect(readFileSync(p.file, 'utf8')).toBe(first);
    expect(oursIn(JSON.parse(first), client).every((entries) => entries.length === 1)).toBe(true);
  });

  it('an entry of an earlier install (another runtime path) is replaced, not doubled', () => {
    const p = project(client, client.original);
    svc(p.dir, client.name);
    const moved = readFileSync(p.file, 'utf8').replaceAll(process.execPath, '/opt/old/node');
    writeFileSync(p.file, moved);
    expect(JSON.parse(svc(p.dir, client.name, '--json').stdout)).toMatchObject({ changed: true });
    const entries = oursIn(JSON.parse(readFileSync(p.file, 'utf8')), client);
    expect(entries.every((e) => e.length === 1 && !JSON.stringify(e).includes('/opt/old/node'))).toBe(true);
    svc(p.dir, client.name, '--uninstall');
    expect(readFileSync(p.file, 'utf8')).toBe(client.original);
  });

  it('creates the settings file when there is none, and uninstall removes it again', () => {
    const p = project(client);
    svc(p.dir, client.name);
    const created = JSON.parse(readFileSync(p.file, 'utf8'));
    if (client.name === 'cursor') expect(created.version).toBe(1);
    expect(Object.keys(created.hooks)).toEqual(Object.keys(client.events));
    svc(p.dir, client.name, '--uninstall');
    expect(existsSync(p.file)).toBe(false);
    expect(svc(p.dir, client.name, '--uninstall').stdout).toMatch(/was not in .*nothing changed/);
  });

  it(`writes what hooks/${client.name}.json shows, its placeholders filled in`, () => {
    const p = project(client);
    svc(p.dir, client.name);
    const written = readFileSync(p.file, 'utf8')
      .replaceAll(`'${process.execPath}'`, "'/path/to/node'")
      .replaceAll(`'${BIN}'`, "'/path/to/svc/bin/svc.js'");
    expect(written).toBe(readFileSync(new URL(`../../hooks/${client.name}.json`, import.meta.url), 'utf8'));
  });

  it('the command it writes runs the hook from any folder: a read of a protected file is denied', () => {
    const p = project(client);
    mkdirSync(join(p.dir, '.svc'));
    writeFileSync(join(p.dir, '.svc', 'rules.json'), JSON.stringify([{ effect: 'deny', paths: ['.env'] }]));
    writeFileSync(join(p.dir, '.env'), 'K=1');
    svc(p.dir, client.name);
    const settings = JSON.parse(readFileSync(p.file, 'utf8'));
    const [entry] = oursIn(settings, client)[0]!;
    const command = (entry.command ?? entry.hooks[0].command) as string;
    const out = execFileSync('/bin/sh', ['-c', command], {
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? '', HOME: home, SVC_HOME: join(tmp.dir, 'svc-home') },
      input: JSON.stringify(client.denied(p.dir)),
      encoding: 'utf8',
    });
    expect(client.isDenial(out), out).toBe(true);
  });
});

it('a settings file that is not valid JSON (or holds comments) is left untouched, with a usage error saying why', () => {
  for (const [client, text] of [
    [clients[0]!, '{ "permissions": '],
    [clients[2]!, '{\n  // mine\n  "ui": {}\n}\n'],
  ] as const) {
    const p = project(client, text);
    const run = svc(p.dir, client.name);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is not valid JSON: fix it first/);
    expect(readFileSync(p.file, 'utf8')).toBe(text);
  }
});

it('settings whose hooks are not an object are left untouched too', () => {
  const p = project(clients[3]!, '{"hooks": []}');
  expect(svc(p.dir, 'codex').stderr).toMatch(/"hooks" is not an object/);
  expect(readFileSync(p.file, 'utf8')).toBe('{"hooks": []}');
});

it('uninstall takes out only svc: a hook of its put by hand into another group goes, the group stays', () => {
  const p = project(clients[0]!);
  svc(p.dir, 'claude');
  const ours = JSON.parse(readFileSync(p.file, 'utf8')).hooks.PreToolUse[0].hooks[0];
  const shared = JSON.stringify(
    { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'mine' }, ours] }] } },
    null,
    2,
  );
  writeFileSync(p.file, shared);
  svc(p.dir, 'claude', '--uninstall');
  expect(JSON.parse(readFileSync(p.file, 'utf8'))).toEqual({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'mine' }] }] },
  });
});

it('--scope user writes in the home folder, and for Codex in CODEX_HOME', () => {
  const p = project(clients[0]!);
  expect(svc(p.dir, 'claude', '--scope', 'user').code).toBe(0);
  expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(true);
  expect(existsSync(p.file)).toBe(false);
  expect(svc(p.dir, 'gemini', '--scope', 'user').code).toBe(0);
  expect(existsSync(join(home, '.gemini', 'settings.json'))).toBe(true);
  expect(svc(p.dir, 'codex', '--scope', 'user').code).toBe(0);
  expect(existsSync(join(tmp.dir, 'codex-home', 'hooks.json'))).toBe(true);
});

it('says what the person must still do: Codex reviews hooks and trusts projects, Gemini CLI trusts folders', () => {
  const codex = project(clients[3]!);
  const run = svc(codex.dir, 'codex', '--json');
  expect(JSON.parse(run.stdout).notes).toEqual([
    expect.stringMatching(/reviewed: trust it in Codex under \/hooks/),
    expect.stringContaining(`[projects."${codex.dir}"] with trust_level = "trusted"`),
  ]);
  expect(svc(project(clients[2]!).dir, 'gemini').stdout).toMatch(/only in a folder it trusts/);
});

it('an unknown client is a usage error', () => {
  const run = svc(tmp.dir, 'vim');
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/--client must be one of claude, cursor, gemini, codex/);
});

it('installed with SVC_HOME and SVC_VAULT set, the hook runs on that store wherever the client starts it', () => {
  // The store's organization denies a file; the client's environment names no store at all.
  const store = { SVC_HOME: join(tmp.dir, 'chosen-store'), SVC_VAULT: 'file' };
  const created = svcWith(store, tmp.dir, 'org', 'create', '--name', 'Hooked', '--json');
  expect(created.code, created.stderr).toBe(0);
  const { api_key } = JSON.parse(created.stdout) as { api_key: string };
  const rule = JSON.stringify({ effect: 'deny', paths: ['**/ledger.txt'] });
  const added = svcWith({ ...store, SVC_API_KEY: api_key }, tmp.dir, 'rules', 'add', rule);
  expect(added.code, added.stderr).toBe(0);
  const p = project(clients[0]!);
  writeFileSync(join(p.dir, 'ledger.txt'), 'private');
  // Relative, as a person may set it: the command names it absolutely.
  const install = (...extra: string[]) =>
    svcWith(
      { SVC_HOME: 'chosen-store', SVC_VAULT: 'file' },
      tmp.dir,
      'hook',
      'install',
      '--client',
      'claude',
      '--scope',
      'user',
      ...extra,
    );
  const run = install();
  expect(run.code, run.stderr).toBe(0);
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks.PreToolUse.at(-1).hooks[0].command as string;
  expect(command).toMatch(
    /^SVC_HOME='[^']+\/chosen-store' SVC_VAULT='file' '\/.+' '\/.+bin\/svc\.js' hook claude$/,
  );
  const event = {
    hook_event_name: 'PreToolUse',
    cwd: p.dir,
    tool_name: 'Read',
    tool_input: { file_path: 'ledger.txt' },
  };
  const out = execFileSync('/bin/sh', ['-c', command], {
    cwd: p.dir,
    env: { PATH: process.env.PATH ?? '', HOME: join(tmp.dir, 'elsewhere') },
    input: JSON.stringify(event),
    encoding: 'utf8',
  });
  expect(clients[0]!.isDenial(out), out).toBe(true);
  // Installing again with the same store changes nothing; uninstalling finds the entry by its end.
  const again = install('--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ changed: false });
  expect(svc(tmp.dir, 'claude', '--scope', 'user', '--uninstall').code).toBe(0);
});
