// Benchmark `run-overhead`: the wall time of a short command (`node -e` printing its secret once)
// through `svc run --secret` against the same command run directly, rounds alternating so both see
// the same machine. What svc adds: its own start, opening the store and the vault, the gate's
// use_key decision, unsealing, masking the output and the receipt.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, REPO_ROOT, type Benchmark } from './lib.ts';

const ROUNDS = 30;
const BIN = join(REPO_ROOT, 'bin', 'svc.js');
const CHILD = [process.execPath, '-e', 'console.log(process.env.BENCH_TOKEN)'];

function wall(args: string[], env: NodeJS.ProcessEnv, input?: string): number {
  const started = performance.now();
  const done = spawnSync(args[0]!, args.slice(1), { env, input, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (done.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')} failed: ${done.stderr}`);
  return ms;
}

export const runOverhead: Benchmark = {
  name: 'run-overhead',
  description: 'svc run --secret around a short command, against the command alone',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-run-'));
    try {
      const env = { ...process.env, SVC_HOME: join(dir, 'svc'), SVC_VAULT: 'file', HOME: dir };
      const token = 'bench_7Qh2x9Lm4Pz8Rt6Wv3Ny';
      wall([process.execPath, BIN, 'secret', 'set', 'BENCH_TOKEN'], env, token);
      const direct: number[] = [];
      const through: number[] = [];
      for (let round = 0; round < ROUNDS + 2; round++) {
        const a = wall(CHILD, { ...env, BENCH_TOKEN: token });
        const b = wall([process.execPath, BIN, 'run', '--secret', 'BENCH_TOKEN', '--', ...CHILD], env);
        // The first two rounds warm the page cache and are not counted.
        if (round >= 2) {
          direct.push(a);
          through.push(b);
        }
      }
      const d = median(direct);
      const t = median(through);
      return {
        metrics: [
          { key: 'direct_p50_ms', label: 'the command alone, p50', value: d, unit: 'ms' },
          { key: 'svc_run_p50_ms', label: 'through svc run --secret, p50', value: t, unit: 'ms' },
          { key: 'overhead_p50_ms', label: 'added by svc run, p50', value: t - d, unit: 'ms' },
          { key: 'ratio', label: 'svc run / direct (p50)', value: t / d, unit: 'x' },
        ],
        checks: [],
        notes: [`${ROUNDS} rounds, alternating; a Node child that prints one secret`],
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
