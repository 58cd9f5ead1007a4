// The real `svc hook gemini` process on Gemini CLI BeforeTool events, in the shape Gemini CLI 0.61
// sends them (docs/HOOKS.md cites its source): what must be denied (its own file tools, its shell,
// other MCP servers' file arguments), a question answered as a refusal (an `ask` would make
// `gemini -p` wait forever), what must pass, and the fail-closed cases.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookProject } from './fixture.ts';

const fx = hookProject('svc-hook-gemini-');
afterAll(() => fx.cleanup());
const { project } = fx;

const event = (tool_name: string, tool_input: Record<string, unknown>, extra: object = {}) => ({
  session_id: 's1',
  transcript_path: join(fx.dir, 't.json'),
  cwd: project,
  hook_event_name: 'BeforeTool',
  timestamp: '2026-01-01T00:00:00.000Z',
  tool_name,
  tool_input,
  ...extra,
});
const shell = (command: string, dir_path?: string) =>
  event('run_shell_command', { command, description: 'run it', ...(dir_path ? { dir_path } : {}) });

const denied: [string, ReturnType<typeof event>][] = [
  ['read_file .env', event('read_file', { file_path: '.env' })],
  ['read_file .env by its absolute path', event('read_file', { file_path: join(project, '.env') })],
  ['read_file .env through ..', event('read_file', { file_path: 'src/../.env' })],
  ['read_file a symlink to .env', event('read_file', { file_path: 'links/settings.txt' })],
  ['read_file in secrets/', event('read_file', { file_path: 'secrets/key.txt' })],
  [
    'read_file by its older argument absolute_path',
    event('read_file', { absolute_path: join(project, '.env') }),
  ],
  [
    'read_file a clean-copy-only file (its clean copy is named instead)',
    event('read_file', { file_path: 'customers/list.txt' }),
  ],
  ['write_file into secrets/', event('write_file', { file_path: 'secrets/new.txt', content: 'x' })],
  ['replace in .env', event('replace', { file_path: '.env', old_string: 'K', new_string: 'L' })],
  ['read_many_files naming .env', event('read_many_files', { include: ['src/app.ts', '.env'] })],
  ['read_many_files with a glob in secrets/', event('read_many_files', { include: ['secrets/*'] })],
  ['read_many_files with a glob matching .env', event('read_many_files', { include: ['.e*'] })],
  [
    'read_many_files climbing out of its glob with ..',
    event('read_many_files', { include: ['src/*/../../secrets/key.txt'] }),
  ],
  ['grep_search over secrets/', event('grep_search', { pattern: 'KEY', dir_path: 'secrets' })],
  ['grep_search with no folder (the project holds .env)', event('grep_search', { pattern: 'KEY' })],
  [
    'search_file_content (the older name) over certs/',
    event('search_file_content', { pattern: 'x', path: 'certs' }),
  ],
  ['glob in certs/', event('glob', { pattern: '*', dir_path: 'certs' })],
  ['glob whose pattern reaches into secrets/', event('glob', { pattern: 'secrets/**' })],
  ['list_directory of secrets/', event('list_directory', { dir_path: 'secrets' })],
  ['run_shell_command cat .env', shell('cat .env')],
  ['run_shell_command grep -r KEY .', shell('grep -r KEY .')],
  ['run_shell_command python reading .env', shell('python3 -c "print(open(\'.env\').read())"')],
  ['run_shell_command head in secrets/', shell('head -1 secrets/key.txt')],
  ['run_shell_command in dir_path reaching up to .env', shell('cat ../.env', 'src')],
  [
    "another MCP server's read_file",
    event(
      'mcp_filesystem_read_file',
      { path: join(project, '.env') },
      { mcp_context: { server_name: 'filesystem', tool_name: 'read_file', command: 'npx' } },
    ),
  ],
];

const passing: [string, ReturnType<typeof event>][] = [
  ['read_file .env.example', event('read_file', { file_path: '.env.example' })],
  ['read_file a source file', event('read_file', { file_path: 'src/app.ts', start_line: 1 })],
  ['write_file a source file', event('write_file', { file_path: 'src/new.ts', content: '' })],
  ['read_many_files with a glob in src/', event('read_many_files', { include: ['src/**/*.ts'] })],
  ['grep_search over docs/', event('grep_search', { pattern: 'TODO', dir_path: 'docs' })],
  ['glob whose pattern stays in src/', event('glob', { pattern: 'src/**/*.ts' })],
  ['list_directory of the project (names, not contents)', event('list_directory', { dir_path: '.' })],
  ['run_shell_command cat .env.example', shell('cat .env.example')],
  ['run_shell_command echo .env', shell('echo .env')],
  ['run_shell_command grep -r TODO src', shell('grep -r TODO src')],
  ["svc's own MCP tools decide for themselves", event('mcp_svc_svc_read', { table: 't' })],
  ["another MCP server's call without a file argument", event('mcp_github_list_issues', { repo: 'a/b' })],
  ['a tool that touches no file', event('google_web_search', { query: '.env' })],
];

describe('svc hook gemini', () => {
  it.concurrent.each(denied)('%s: denied', async (_name, input) => {
    const answer = await fx.run('gemini', input);
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.out).toEqual({ decision: 'deny', reason: expect.stringMatching(/^svc: /) });
  });

  it.concurrent.each(passing)('%s: passes with nothing on stdout', async (_name, input) => {
    const answer = await fx.run('gemini', input);
    expect(answer).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it.concurrent.each([
    ['read_file of an export', event('read_file', { file_path: 'exports/orders.csv' })],
    ['run_shell_command cat of an export', shell('cat exports/orders.csv')],
  ])('%s the person would be asked about is refused, saying a person must approve', async (_name, input) => {
    const answer = await fx.run('gemini', input);
    expect(answer.code).toBe(0);
    expect(answer.out?.decision).toBe('deny');
    expect(answer.out?.reason).toMatch(/needs the person's approval/);
    expect(answer.out?.reason).toMatch(
      /A person must approve this first, and Gemini CLI cannot ask them here/,
    );
  });

  it("answers in Gemini's words only: no Claude Code fields", async () => {
    const answer = await fx.run('gemini', event('read_file', { file_path: '.env' }));
    expect(Object.keys(answer.out ?? {}).sort()).toEqual(['decision', 'reason']);
    expect(answer.out?.reason).toContain('keys and tokens');
  });
});

describe('fails closed: exit 2, nothing on stdout, the reason on stderr (Gemini denies with it)', () => {
  it.each([
    ['an event that is not JSON', 'not json', /not JSON/],
    [
      'an event without its tool input',
      JSON.stringify({ ...event('read_file', {}), tool_input: undefined }),
      /BeforeTool/,
    ],
    [
      'another hook event',
      JSON.stringify({ ...event('read_file', { file_path: 'x' }), hook_event_name: 'AfterTool' }),
      /BeforeTool/,
    ],
  ])('%s', async (_name, input, why) => {
    const answer = await fx.run('gemini', input);
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toMatch(why);
  });

  it('a rules file that cannot be read blocks every gated call, naming the file', async () => {
    const missing = join(fx.dir, 'missing.json');
    const answer = await fx.run('gemini', event('read_file', { file_path: 'src/app.ts' }), {
      SVC_RULES_FILE: missing,
    });
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toContain(missing);
  });

  it('a rules file that is not valid blocks too', async () => {
    const broken = join(fx.dir, 'broken.json');
    writeFileSync(broken, '[{"effect": "deny"}]');
    const answer = await fx.run('gemini', shell('ls'), { SVC_RULES_FILE: broken });
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain(broken);
  });
});
