// Benchmark `hook-latency`: the wall time of one `svc hook claude` process answering a Read event
// and a Bash pipeline, started the way an installed hook starts (from the bundle `svc hook install`
// builds), beside `node -e 0` (the bare runtime start) in the same run, rounds alternating. The
// computer is set up as a user's is: a store with an organization and its rule, and a project with
// a rules file. The two events are an agent's usual calls, on files no rule covers (the gate still
// reads every rule, the store's included, and decides); a Read of a protected file, denied and put
// on the audit chain (the store and keys opened, a row signed), is measured beside them, and so is
// the usual Read answered from the sources (SVC_HOOK_BUNDLE=off, what a hook does while its bundle
// is being built). It reports what the process loads: the modules through the runtime's loader,
// and the bundle with its code cache.
// Target (the gate issue): p50 <= 1.25x the bare start, for the Read and for the pipeline.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BundleReport } from '../src/entry/hook-bundle.ts';
import type { Loaded } from './hook-census.ts';
import { atMost, median, REPO_ROOT, withTempDir, type Benchmark } from './lib.ts';

const ROUNDS = 60;
const BIN = join(REPO_ROOT, 'bin', 'svc.js');
const CENSUS = fileURLToPath(new URL('./hook-census.ts', import.meta.url));

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

export const hookLatency: Benchmark = {
  name: 'hook-latency',
  description: `svc hook claude (installed: from its bundle) on a Read event and a Bash pipeline vs node -e 0, the Read from the sources, and a denied, recorded Read; ${ROUNDS} alternating rounds (p50, p95)`,
  run: () =>
    withTempDir('hook', (dir) => {
      const project = join(dir, 'shop');
      mkdirSync(join(project, '.svc'), { recursive: true });
      mkdirSync(join(project, '.git'));
      writeFileSync(join(project, '.env'), 'K=1');
      mkdirSync(join(project, 'src'));
      writeFileSync(join(project, 'src', 'app.ts'), 'export {};\n');
      writeFileSync(join(project, 'notes.md'), '# notes\n');
      writeFileSync(
        join(project, '.svc', 'rules.json'),
        JSON.stringify([
          { effect: 'deny', paths: ['.env', 'secrets/'] },
          { effect: 'ask', paths: ['*.csv'] },
        ]),
      );
      const toolCall = (tool_name: string, tool_input: Record<string, string>) =>
        JSON.stringify({ hook_event_name: 'PreToolUse', cwd: project, tool_name, tool_input });
      const event = toolCall('Read', { file_path: 'src/app.ts' });
      const pipeline = toolCall('Bash', { command: 'grep -v "^#" notes.md | sort | head -5 && echo done' });
      const denied = toolCall('Read', { file_path: '.env' });
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        SVC_HOME: join(dir, 'svc-home'),
        SVC_VAULT: 'file',
      };
      const svc = (args: string[], more: Record<string, string> = {}) =>
        execFileSync(process.execPath, [BIN, ...args], { env: { ...env, ...more }, encoding: 'utf8' });
      const { api_key } = JSON.parse(svc(['org', 'create', '--name', 'Bench', '--json'])) as {
        api_key: string;
      };
      svc(['rules', 'add', '{"effect":"deny","paths":["*.pem","exports/"]}'], { SVC_API_KEY: api_key });
      const time = (args: string[], input = '', more: Record<string, string> = {}) => {
        const start = performance.now();
        const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, env: { ...env, ...more }, input });
        const elapsed = performance.now() - start;
        if (result.status !== 0)
          throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
        // The usual calls pass (an empty answer) and the protected Read is denied: a hook that
        // answered otherwise measured something else.
        const deny = String(result.stdout).includes('"permissionDecision":"deny"');
        if (input && deny !== (input === denied))
          throw new Error(`${args.join(' ')} answered ${result.stdout}`);
        return elapsed;
      };
      // What `svc hook install` does after writing the settings.
      const bundle = JSON.parse(svc(['hook', 'bundle', '--json'])) as BundleReport;
      if (!bundle.cache_accepted) throw new Error('the runtime refused the code cache it just made');
      const censusFile = join(dir, 'census.json');
      time(['--import', CENSUS, BIN, 'hook', 'claude'], event, { HOOK_CENSUS_FILE: censusFile });
      const census = JSON.parse(readFileSync(censusFile, 'utf8')) as Loaded[];
      const files = census.filter((m) => m.url.startsWith('file:'));
      const named = census.map((m) =>
        m.url.startsWith('file:') ? relative(REPO_ROOT, fileURLToPath(m.url)) : m.url,
      );
      // Warm the page cache and the sources' compile cache once each.
      time([BIN, 'hook', 'claude'], event);
      time([BIN, 'hook', 'claude'], event, { SVC_HOOK_BUNDLE: 'off' });
      time(['-e', '0']);
      const hook: number[] = [];
      const shell: number[] = [];
      const sources: number[] = [];
      const recorded: number[] = [];
      const bare: number[] = [];
      time([BIN, 'hook', 'claude'], denied);
      for (let i = 0; i < ROUNDS; i++) {
        hook.push(time([BIN, 'hook', 'claude'], event));
        bare.push(time(['-e', '0']));
        shell.push(time([BIN, 'hook', 'claude'], pipeline));
        sources.push(time([BIN, 'hook', 'claude'], event, { SVC_HOOK_BUNDLE: 'off' }));
        if (i % 3 === 0) recorded.push(time([BIN, 'hook', 'claude'], denied));
      }
      const ms = (key: string, label: string, values: number[]) => [
        { key: `${key}_p50_ms`, label: `${label}, p50`, value: median(values), unit: 'ms' },
        { key: `${key}_p95_ms`, label: `${label}, p95`, value: p95(values), unit: 'ms' },
      ];
      return {
        metrics: [
          ...ms('hook', 'svc hook claude, Read event', hook),
          ...ms('shell', 'svc hook claude, Bash pipeline', shell),
          ...ms('bare', 'node -e 0', bare),
          ...ms('sources', 'svc hook claude, Read event, from the sources', sources),
          ...ms('recorded', 'svc hook claude, Read of a protected file (denied, audit row signed)', recorded),
          {
            key: 'loader_files',
            label: 'files the loader loads (Read)',
            value: files.length,
            unit: 'files',
          },
          {
            key: 'loader_bytes',
            label: 'their size',
            value: files.reduce((n, m) => n + m.bytes, 0),
            unit: 'bytes',
          },
          { key: 'bundle_modules', label: 'modules in the bundle', value: bundle.modules, unit: 'modules' },
          { key: 'bundle_script_bytes', label: 'bundle script', value: bundle.script_bytes, unit: 'bytes' },
          { key: 'bundle_cache_bytes', label: 'bundle code cache', value: bundle.cache_bytes, unit: 'bytes' },
          {
            key: 'bundle_sources_checked',
            label: "files compared with the bundle's copy at start",
            value: bundle.sources.files,
            unit: 'files',
          },
          { key: 'bundle_build_ms', label: 'svc hook bundle', value: bundle.build_ms, unit: 'ms' },
        ],
        checks: [
          atMost('hook_vs_bare_p50', 'Read: hook p50 / bare start p50', median(hook) / median(bare), 1.25),
          atMost('shell_vs_bare_p50', 'Bash: hook p50 / bare start p50', median(shell) / median(bare), 1.25),
        ],
        notes: [
          'each round spawns the process and waits for its answer; the Read and the pipeline touch files no rule covers, in a project with a rules file and a store with an organization rule; the protected Read is denied and recorded',
          `the loader loads ${named.join(', ')}; builtins come through process.getBuiltinModule`,
          `the bundle (read by the launcher, not the loader): ${bundle.modules} modules, ${bundle.script_bytes} bytes of script and ${bundle.cache_bytes} of code cache; ${bundle.sources.files} source files (${bundle.sources.bytes} bytes) compared with its copy`,
        ],
      };
    }),
};
