// The real `svc hook cursor` process on Cursor's hook events, in the formats its documentation
// gives (no Cursor client runs here): beforeReadFile (allow or deny only), beforeShellExecution and
// beforeMCPExecution (allow, deny or ask), and the fail-closed cases; through the hook's bundle.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const tmp = tempDir('svc-hook-cursor-');
afterAll(() => tmp.cleanup());
const project = join(tmp.dir, 'shop');
mkdirSync(join(project, '.svc'), { recursive: true });
mkdirSync(join(project, 'src'));
writeFileSync(join(project, '.env'), 'K=1');
writeFileSync(join(project, '.env.example'), 'K=');
writeFileSync(join(project, 'src', 'app.ts'), '');
writeFileSync(
  join(project, '.svc', 'rules.json'),
  JSON.stringify([
    { effect: 'deny', paths: ['.env'] },
    { effect: 'ask', paths: ['*.csv'] },
  ]),
);

const ENV = {
  PATH: process.env.PATH ?? '',
  HOME: join(tmp.dir, 'home'),
  SVC_HOME: join(tmp.dir, 'svc-home'),
};
// As an installed hook does, the hook starts from its bundle.
beforeAll(() => {
  execFileSync(process.execPath, [BIN, 'hook', 'bundle'], { env: ENV });
});

function hook(event: object | string) {
  const run = spawnSync(process.execPath, [BIN, 'hook', 'cursor'], {
    input: typeof event === 'string' ? event : JSON.stringify(event),
    env: ENV,
    encoding: 'utf8',
  });
  return {
    code: run.status,
    out: run.stdout.trim() ? JSON.parse(run.stdout) : undefined,
    stderr: run.stderr,
  };
}

const common = { conversation_id: 'c1', generation_id: 'g1', workspace_roots: [project] };
const read = (file_path: string) => ({
  ...common,
  hook_event_name: 'beforeReadFile',
  file_path,
  content: '',
});
const shell = (command: string) => ({
  ...common,
  hook_event_name: 'beforeShellExecution',
  command,
  cwd: project,
});
const mcp = (tool_input: unknown) => ({
  ...common,
  hook_event_name: 'beforeMCPExecution',
  tool_name: 'read_file',
  tool_input,
});

it.each([
  ['beforeReadFile of .env', read(join(project, '.env')), 'deny'],
  ['beforeReadFile of a csv: Cursor cannot ask here, so deny', read(join(project, 'orders.csv')), 'deny'],
  ['beforeReadFile of .env.example', read(join(project, '.env.example')), 'allow'],
  ['beforeShellExecution cat .env', shell('cat .env'), 'deny'],
  ['beforeShellExecution grep -r KEY .', shell('grep -r KEY .'), 'deny'],
  ['beforeShellExecution python -c reading .env', shell('python3 -c "print(open(\'.env\').read())"'), 'deny'],
  ['beforeShellExecution cat orders.csv asks', shell('cat orders.csv'), 'ask'],
  ['beforeShellExecution npm test', shell('npm test'), 'allow'],
  ['beforeShellExecution echo .env', shell('echo .env'), 'allow'],
  ['beforeMCPExecution with an object input', mcp({ path: join(project, '.env') }), 'deny'],
  ['beforeMCPExecution with JSON text input', mcp(JSON.stringify({ path: join(project, '.env') })), 'deny'],
  ['beforeMCPExecution on a plain file', mcp({ path: join(project, 'src', 'app.ts') }), 'allow'],
])('%s: %s', (_name, event, permission) => {
  const answer = hook(event);
  expect(answer.code, answer.stderr).toBe(0);
  expect(answer.out.permission).toBe(permission);
  if (permission !== 'allow') expect(answer.out.user_message).toMatch(/^svc: /);
});

it('a denied shell command carries a message for the person and one for the agent; a file read only the first', () => {
  expect(Object.keys(hook(shell('cat .env')).out).sort()).toEqual([
    'agent_message',
    'permission',
    'user_message',
  ]);
  expect(Object.keys(hook(read(join(project, '.env'))).out).sort()).toEqual(['permission', 'user_message']);
});

it.each([
  ['not JSON', 'nope'],
  [
    'an event Cursor does not send before an action',
    { ...common, hook_event_name: 'afterFileEdit', file_path: 'x' },
  ],
  ['an MCP input that is not JSON', mcp('{nope')],
  ['a file read without workspace roots', { hook_event_name: 'beforeReadFile', file_path: 'x' }],
])('fails closed on %s: exit 2 with the reason', (_name, event) => {
  const answer = hook(event);
  expect(answer.code).toBe(2);
  expect(answer.stderr).toMatch(/blocked/);
});
