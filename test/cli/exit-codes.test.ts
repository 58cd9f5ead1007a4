// The exit codes docs/CLI.md gives, and one line saying what to do, for commands given what they
// cannot use: help asked for, a bad id, a missing file, a folder for a file, an --out in no folder,
// a data dir that is a file, an incomplete option set, a bad option value. Never a system error's
// text or an internal temporary name.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../e2e/procs.ts';
import { SERVER_VERSION } from '../../src/tools/server.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { cliComputer } from './computer.ts';

const computer = cliComputer('svc-exit-codes-');
const { dir, env } = computer;
const file = join(dir, 'c.txt');
const sealed = join(dir, 'sealed.txt');
const folder = join(dir, 'folder');
let apiKey: string;
let archived: string;

beforeAll(async () => {
  writeFileSync(file, 'hello\n');
  writeFileSync(sealed, 'sealed here\n');
  mkdirSync(folder);
  const created = await runSvc(['org', 'create', '--name', 'Exit', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  apiKey = (created.json() as { api_key: string }).api_key;
  expect((await runSvc(['protect', sealed], env)).code).toBe(0);
  const wrapped = await runSvc(['wrap', file, '--json'], env);
  expect(wrapped.code, wrapped.stderr).toBe(0);
  archived = (wrapped.json() as { wrapped: { object_id: string }[] }).wrapped[0]!.object_id;
});

/** A message svc wrote on its own, not a system error's or the framework's. */
const ownLine = (stderr: string) => {
  expect(stderr).not.toMatch(/E[A-Z]{3,}:|\.svc-open-|internal/);
  return stderr.trim();
};

describe('help exits 0', () => {
  it.each([[['help']], [['help', 'scan']], [['hook', 'claude', '--help']], [['scan', '--help']]])(
    'svc %j',
    async (args) => {
      const run = await runSvc(args, env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: svc /);
    },
  );

  it('svc hook claude --help is the help, not a hook answering an empty event', async () => {
    const run = await runSvc(['hook', 'claude', '--help'], env);
    expect(run.stdout).toMatch(/^Usage: svc hook /);
    expect(run.stderr).not.toMatch(/not JSON/);
  });

  it('svc --version (and -V) prints the version of the package, which the MCP server reports too', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await runSvc([flag], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(packageJson.version);
    }
    expect(SERVER_VERSION).toBe(packageJson.version);
  });

  it('help for no such command, and svc alone, are usage errors (2)', async () => {
    expect((await runSvc(['help', 'nope'], env)).code).toBe(2);
    expect((await runSvc([], env)).code).toBe(2);
  });
});

describe('usage errors exit 2', () => {
  it.each([
    [
      'an argument that is no exposure id or link',
      ['expose', 'end', 'nope'],
      /`nope` is not an exposure link or id.*svc expose list/,
    ],
    [
      'encrypt with neither -r nor -p',
      ['encrypt', file],
      /encrypt needs --recipient age1… \(one or more\) or --passphrase/,
    ],
    ['encrypt with both', ['encrypt', file, '-r', 'age1x', '-p'], /not both/],
    [
      'an unknown --client without --print-config',
      ['mcp', '--client', 'bogus'],
      /--client must be one of claude-code/,
    ],
  ])('%s', async (_, args, message) => {
    const run = await runSvc(args, env, 15_000);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('an id of no exposure is the service refusing it (1)', async () => {
    const run = await runSvc(['expose', 'end', 'AAAAAAAAAAAAAAAAAAAAAA'], env);
    expect(run.code).toBe(1);
  });
});

describe('failures exit 1 with what to do', () => {
  it('svc send of a missing file is not_found', async () => {
    const run = await runSvc(['send', join(dir, 'nothere'), '--json'], { ...env, SVC_API_KEY: apiKey });
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ error: 'not_found' });
    expect(ownLine(run.stderr)).toMatch(/^svc: no file at .*nothere: give a file that exists/);
  });

  it.each([
    ['svc open of a folder', ['open', folder], /folder is not a file: open takes one sealed file/],
    [
      'svc seal revoke of a folder',
      ['seal', 'revoke', folder],
      /folder is a folder: give a sealed file or a seal id/,
    ],
    [
      'svc open --out in no folder',
      () => ['open', sealed, '--out', join(dir, 'nodir', 'x.txt')],
      /there is no folder .*nodir to open into: make it first/,
    ],
    ['svc open --out a folder', () => ['open', sealed, '--out', folder], /is a folder: name a file in it/],
    [
      'svc wrap restore --out in no folder',
      () => ['wrap', 'restore', archived, '--out', join(dir, 'nodir', 'y')],
      /there is no folder .*nodir/,
    ],
  ])('%s', async (_, argsOf, message) => {
    const args = typeof argsOf === 'function' ? argsOf() : argsOf;
    const run = await runSvc([...args, '--json'], env);
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({
      error: expect.stringMatching(/^(invalid_request|not_found|conflict)$/),
    });
    expect(ownLine(run.stderr)).toMatch(message);
  });

  it('SVC_HOME naming a file, or a path inside one, says to set it to a folder', async () => {
    for (const home of [file, join(file, 'below')]) {
      const run = await runSvc(['seal', 'list', '--json'], { ...env, SVC_HOME: home });
      expect(run.code).toBe(1);
      expect(run.json()).toMatchObject({ error: 'invalid_request' });
      expect(ownLine(run.stderr)).toMatch(
        /^svc: SVC_HOME is .*, which (is a file, not a folder|lies inside a file): set SVC_HOME to a folder/,
      );
    }
  });
});
