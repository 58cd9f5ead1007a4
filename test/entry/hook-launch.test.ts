// How a hook starts: from its bundle only while every file the bundle was built from is unchanged,
// from the sources otherwise (a bundle then built in the background), and never with an answer of
// a bundle it cannot fully read. Runs the real hook process of a copy of svc, whose sources the
// tests edit, with a data dir of its own.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { perUserDataDir as dataDirInTypeScript, resolveDataDir } from '../../src/config/data-dir.ts';
import { dataDirOf, perUserDataDir, type Manifest } from '../../src/entry/hook-launch.js';
import { tempDir } from '../helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe("the launcher's data dir", () => {
  it.each([
    ['linux', {}, '/home/ann/.local/share/svc'],
    ['linux', { XDG_DATA_HOME: '/data/ann' }, '/data/ann/svc'],
    ['linux', { XDG_DATA_HOME: '' }, '/home/ann/.local/share/svc'],
    ['freebsd', {}, '/home/ann/.local/share/svc'],
    ['darwin', {}, '/home/ann/Library/Application Support/svc'],
    ['win32', {}, '\\home\\ann\\AppData\\Local\\svc\\Data'],
    [
      'win32',
      { LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' },
      'C:\\Users\\ann\\AppData\\Local\\svc\\Data',
    ],
  ] as const)("is src/config/data-dir.ts's on %s with %o", (platform, env, expected) => {
    expect(perUserDataDir(platform, env, '/home/ann')).toBe(expected);
    expect(dataDirInTypeScript(platform, env, '/home/ann')).toBe(expected);
  });

  it.each([
    { SVC_HOME: '/srv/svc' },
    { SVC_HOME: '  ', HOME: '/home/ann' },
    { HOME: '/home/ann', XDG_DATA_HOME: '/data/ann' },
    {},
  ])('follows SVC_HOME and HOME as the sources do: %o', (env) => {
    expect(dataDirOf(env)).toBe(resolveDataDir(env));
  });
});

describe('a hook of a copy of svc', () => {
  const tmp = tempDir('svc-hook-launch-');
  afterAll(() => tmp.cleanup());
  const copy = join(tmp.dir, 'svc');
  for (const part of ['bin', 'src', 'package.json', 'tsconfig.json']) {
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
  const project = join(tmp.dir, 'shop');
  mkdirSync(join(project, '.svc'), { recursive: true });
  writeFileSync(join(project, '.env'), 'K=1');
  writeFileSync(join(project, '.svc', 'rules.json'), JSON.stringify([{ effect: 'deny', paths: ['.env'] }]));
  const read = JSON.stringify({
    hook_event_name: 'PreToolUse',
    cwd: project,
    tool_name: 'Read',
    tool_input: { file_path: '.env' },
  });
  const formatFile = join(copy, 'src', 'hooks', 'format.ts');
  const original = readFileSync(formatFile, 'utf8');

  let n = 0;
  let svcHome = '';
  const env = (more: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    HOME: tmp.dir,
    SVC_HOME: svcHome,
    ...more,
  });
  beforeEach(() => {
    svcHome = join(tmp.dir, `svc-home-${n++}`);
    writeFileSync(formatFile, original);
  });

  const svc = (args: string[], more?: Record<string, string>) =>
    spawnSync(process.execPath, [join(copy, 'bin', 'svc.js'), ...args], {
      input: read,
      env: env(more),
      encoding: 'utf8',
    });
  const build = () =>
    JSON.parse(svc(['hook', 'bundle', '--json']).stdout) as { dir: string; cache_accepted: boolean };
  const manifestOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  /** The reason the hook gives for the denied read of .env; exit 0 and a deny, or the test fails. */
  const reason = (more?: Record<string, string>) => {
    const run = svc(['hook', 'claude'], more);
    expect(run.status, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout).hookSpecificOutput;
    expect(answer.permissionDecision).toBe('deny');
    return answer.permissionDecisionReason as string;
  };
  /** The hook's reasons start `svc: `; an edit of the sources makes them start `SVC: ` (the same length). */
  const editSources = () => writeFileSync(formatFile, original.replace('`svc: ${', '`SVC: ${'));
  /** Resolves once the background build the hook asked for has ended (its builder removes the marker). */
  function buildEnded(dir: string): Promise<void> {
    const ended = () => existsSync(join(dir, 'manifest.json')) && !existsSync(join(dir, 'building'));
    return new Promise((resolve, reject) => {
      const watcher = watch(dir, () => {
        if (ended()) finish();
      });
      const deadline = setTimeout(() => finish(new Error('no build ended within 20 s')), 20_000);
      function finish(error?: Error) {
        watcher.close();
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve();
      }
      if (ended()) finish();
    });
  }
  /** A bundle whole and made for this copy of svc and this runtime. */
  function expectWhole(dir: string): Manifest {
    const m = manifestOf(dir);
    expect([m.root, m.node]).toEqual([copy, process.version]);
    expect(readFileSync(join(dir, m.script.file)).length).toBe(m.script.bytes);
    expect(readFileSync(join(dir, m.cache.file)).length).toBe(m.cache.bytes);
    expect(readFileSync(join(dir, m.sources.file)).length).toBe(
      m.sources.files.reduce((t, f) => t + f.bytes, 0),
    );
    return m;
  }

  it('starts from the bundle while the files it was built from are unchanged', () => {
    const { dir, cache_accepted } = build();
    expect(cache_accepted).toBe(true);
    expect(reason()).toMatch(/^svc: /);
    // An edit that the bundle's copy of its sources holds too is one the bundle is taken to have:
    // the answer still comes from the bundle, which shows that the hook started from it.
    editSources();
    const manifest = manifestOf(dir);
    const copyFile = join(dir, manifest.sources.file);
    const bytes = readFileSync(copyFile);
    const at = bytes.indexOf('`svc: ${');
    bytes.write('`SVC: ${', at);
    writeFileSync(copyFile, bytes);
    expect(reason()).toMatch(/^svc: /);
  });

  it('holds strict code, as the ES modules it is made from are, and requires builtins only', () => {
    const { dir } = build();
    const code = readFileSync(join(dir, manifestOf(dir).script.file), 'utf8');
    expect(code.startsWith('"use strict";')).toBe(true);
    expect([...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(
      expect.arrayContaining(['node:fs', 'node:path']),
    );
    expect([...code.matchAll(/\brequire\("([^"]+)"\)/g)].every((m) => m[1]!.startsWith('node:'))).toBe(true);
  });

  it('with a source edited since the build, answers from the sources and builds a new bundle', async () => {
    const { dir } = build();
    const before = manifestOf(dir).script.file;
    editSources();
    expect(reason()).toMatch(/^SVC: /);
    await buildEnded(dir);
    expect(expectWhole(dir).script.file).not.toBe(before);
    expect(reason()).toMatch(/^SVC: /);
  });

  it('without a bundle, answers from the sources and builds one for the next call', async () => {
    expect(reason()).toMatch(/^svc: /);
    const [folder] = readdirSync(join(svcHome, 'hook'));
    await buildEnded(join(svcHome, 'hook', folder!));
    expectWhole(join(svcHome, 'hook', folder!));
  });

  it('with SVC_HOOK_BUNDLE=off, answers from the sources and builds nothing', () => {
    editSources();
    expect(reason({ SVC_HOOK_BUNDLE: 'off' })).toMatch(/^SVC: /);
    // A build is asked for before the hook exits, so by now its folder would be there.
    expect(existsSync(join(svcHome, 'hook'))).toBe(false);
  });

  const breakages: [string, (dir: string, m: Manifest) => void][] = [
    ['a manifest that is not JSON', (dir) => writeFileSync(join(dir, 'manifest.json'), '{')],
    [
      'a manifest of another runtime',
      (dir, m) => writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...m, node: 'v0.0.0' })),
    ],
    [
      'a manifest of another copy of svc',
      (dir, m) => writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...m, root: '/elsewhere' })),
    ],
    [
      'a script cut short',
      (dir, m) =>
        writeFileSync(join(dir, m.script.file), readFileSync(join(dir, m.script.file)).subarray(0, 100)),
    ],
    [
      'a code cache garbled, of the same size',
      (dir, m) => writeFileSync(join(dir, m.cache.file), Buffer.alloc(m.cache.bytes, 7)),
    ],
    ['no code cache', (dir, m) => writeFileSync(join(dir, m.cache.file), '')],
    ['no copy of the sources', (dir, m) => writeFileSync(join(dir, m.sources.file), '')],
  ];
  it.each(breakages)(
    'with %s, answers all the same and builds a whole bundle again',
    async (_name, breakIt) => {
      const { dir } = build();
      breakIt(dir, manifestOf(dir));
      expect(reason()).toMatch(/^svc: /);
      await buildEnded(dir);
      expectWhole(dir);
    },
  );

  it('builds through `svc hook install` too, so the first call starts fast', () => {
    const run = execFileSync(
      process.execPath,
      [join(copy, 'bin', 'svc.js'), 'hook', 'install', '--client', 'claude', '--json'],
      {
        cwd: project,
        env: env(),
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(run).bundle).toMatchObject({ cache_accepted: true });
  });
});
