// Benchmark `hook-latency`: the wall time of one `svc hook claude` process answering a Read event
// (a project with a rules file; the event is denied), beside `node -e 0` (the bare runtime start)
// in the same run, rounds alternating. Target (the gate issue): p50 <= 1.25x the bare start.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { atMost, median, REPO_ROOT, withTempDir, type Benchmark } from './lib.ts';

const ROUNDS = 40;

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

export const hookLatency: Benchmark = {
  name: 'hook-latency',
  description: `svc hook claude on a Read event and a Bash pipeline vs node -e 0, ${ROUNDS} alternating rounds (p50, p95)`,
  run: () =>
    withTempDir('hook', (dir) => {
      const project = join(dir, 'shop');
      mkdirSync(join(project, '.svc'), { recursive: true });
      mkdirSync(join(project, '.git'));
      writeFileSync(join(project, '.env'), 'K=1');
      writeFileSync(
        join(project, '.svc', 'rules.json'),
        JSON.stringify([
          { effect: 'deny', paths: ['.env', 'secrets/'] },
          { effect: 'ask', paths: ['*.csv'] },
        ]),
      );
      const event = JSON.stringify({
        hook_event_name: 'PreToolUse',
        cwd: project,
        tool_name: 'Read',
        tool_input: { file_path: '.env' },
      });
      const pipeline = JSON.stringify({
        hook_event_name: 'PreToolUse',
        cwd: project,
        tool_name: 'Bash',
        tool_input: { command: 'grep -v "^#" .env | sort | head -5 && echo done' },
      });
      const env = { PATH: process.env.PATH ?? '', HOME: dir, SVC_HOME: join(dir, 'svc-home') };
      const time = (args: string[], input?: string) => {
        const start = performance.now();
        const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, env, input: input ?? '' });
        if (result.status !== 0)
          throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
        return performance.now() - start;
      };
      // Warm the compile cache and the page cache once each.
      time([join(REPO_ROOT, 'bin/svc.js'), 'hook', 'claude'], event);
      time(['-e', '0']);
      const hook: number[] = [];
      const shell: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        hook.push(time([join(REPO_ROOT, 'bin/svc.js'), 'hook', 'claude'], event));
        shell.push(time([join(REPO_ROOT, 'bin/svc.js'), 'hook', 'claude'], pipeline));
        bare.push(time(['-e', '0']));
      }
      const ratio = median(hook) / median(bare);
      return {
        metrics: [
          { key: 'hook_p50_ms', label: 'svc hook claude, Read event, p50', value: median(hook), unit: 'ms' },
          { key: 'hook_p95_ms', label: 'svc hook claude, Read event, p95', value: p95(hook), unit: 'ms' },
          {
            key: 'shell_p50_ms',
            label: 'svc hook claude, Bash pipeline, p50',
            value: median(shell),
            unit: 'ms',
          },
          {
            key: 'shell_p95_ms',
            label: 'svc hook claude, Bash pipeline, p95',
            value: p95(shell),
            unit: 'ms',
          },
          { key: 'bare_p50_ms', label: 'node -e 0, p50', value: median(bare), unit: 'ms' },
          { key: 'bare_p95_ms', label: 'node -e 0, p95', value: p95(bare), unit: 'ms' },
        ],
        checks: [atMost('hook_vs_bare_p50', 'hook p50 / bare start p50', ratio, 1.25)],
        notes: [
          'each round spawns the process and waits for its answer; the event is denied by a project rule',
        ],
      };
    }),
};
