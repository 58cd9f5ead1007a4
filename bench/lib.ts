// Shared benchmark helpers: a duration-bounded timing loop, temp data dirs and child server
// processes that are cleaned up even when a benchmark throws, and the report shape run.ts prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root, so child processes find bin/svc.js whatever the caller's cwd. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------- report shape

export interface Metric {
  /** Stable name for results.json. */
  key: string;
  label: string;
  value: number;
  unit: string;
}

/** A target: a floor (a ratio measured in the same run) or a ceiling (a failure count). */
export interface Check {
  key: string;
  label: string;
  value: number;
  op: '>=' | '<=';
  target: number;
  pass: boolean;
}

export interface BenchReport {
  metrics: Metric[];
  checks: Check[];
  notes: string[];
}

export interface Benchmark {
  name: string;
  description: string;
  run(): Promise<BenchReport>;
}

export function atLeast(key: string, label: string, value: number, target: number): Check {
  return { key, label, value, op: '>=', target, pass: value >= target };
}

export function atMost(key: string, label: string, value: number, target: number): Check {
  return { key, label, value, op: '<=', target, pass: value <= target };
}

// ---------------------------------------------------------------- timing

export interface Rate {
  ops: number;
  seconds: number;
  perSecond: number;
}

/**
 * Runs a synchronous `op` for `warmupMs` (JIT, statement cache, page cache), then counts how many
 * times it completes in `durationMs`. The clock is read after every call: at the microsecond scale
 * of the operations measured here, performance.now() costs well under 1% of an op.
 */
export function measure(op: () => unknown, options: { warmupMs?: number; durationMs?: number } = {}): Rate {
  runFor(op, options.warmupMs ?? 500);
  return runFor(op, options.durationMs ?? 3000);
}

function runFor(op: () => unknown, ms: number): Rate {
  const start = performance.now();
  const end = start + ms;
  let ops = 0;
  let now: number;
  do {
    op();
    ops++;
    now = performance.now();
  } while (now < end);
  const seconds = (now - start) / 1000;
  return { ops, seconds, perSecond: ops / seconds };
}

/**
 * `measure` for an `op` that answers a promise: each call is awaited before the next starts, so
 * the rate is of one caller going through the operation's full path, promise settling included.
 */
export async function measureAsync(
  op: () => Promise<unknown>,
  options: { warmupMs?: number; durationMs?: number } = {},
): Promise<Rate> {
  await runForAsync(op, options.warmupMs ?? 500);
  return await runForAsync(op, options.durationMs ?? 3000);
}

async function runForAsync(op: () => Promise<unknown>, ms: number): Promise<Rate> {
  const start = performance.now();
  const end = start + ms;
  let ops = 0;
  let now: number;
  do {
    await op();
    ops++;
    now = performance.now();
  } while (now < end);
  const seconds = (now - start) / 1000;
  return { ops, seconds, perSecond: ops / seconds };
}

/**
 * `measureAsync` with `concurrency` callers at once, as a server's concurrent requests are: each
 * caller awaits its call before starting the next, and the rate counts every completed call.
 */
export async function measureConcurrent(
  op: () => Promise<unknown>,
  concurrency: number,
  options: { warmupMs?: number; durationMs?: number } = {},
): Promise<Rate> {
  const run = async (ms: number) => {
    const start = performance.now();
    const end = start + ms;
    let ops = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          await op();
          ops++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    return { ops, seconds, perSecond: ops / seconds };
  };
  await run(options.warmupMs ?? 500);
  return run(options.durationMs ?? 3000);
}

/** Times one call of a longer `work`, such as a full chain verification. */
export function timed<T>(work: () => T): { result: T; seconds: number } {
  const start = performance.now();
  const result = work();
  return { result, seconds: (performance.now() - start) / 1000 };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// ---------------------------------------------------------------- cleanup registry

// Whatever is still registered when the process exits (an uncaught error, Ctrl-C via run.ts's
// SIGINT handler) is removed or killed here, so a failed run leaves no server or data dir behind.
const liveDirs = new Set<string>();
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `work` with a fresh directory under os.tmpdir(), removed afterwards whatever happens. */
export async function withTempDir<T>(label: string, work: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-${label}-`));
  liveDirs.add(dir);
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    liveDirs.delete(dir);
  }
}

// ---------------------------------------------------------------- child servers

export interface ChildServer {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL if the child has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns `node <args>` and waits for a stdout line matching `urlPattern` (group 1 is the URL).
 * Runs with this process's Node binary, which is the Node 24 the sources need.
 */
export async function spawnServer(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; urlPattern: RegExp; startTimeoutMs?: number },
): Promise<ChildServer> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => liveChildren.delete(child));

  // Keep the last of stderr for error messages; reading it also keeps the pipe from filling up.
  let stderrTail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
  });

  const stop = async (graceMs = 5000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const lines = createInterface({ input: child.stdout! });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timeoutMs = options.startTimeoutMs ?? 15_000;
      const timer = setTimeout(
        () => reject(new Error(`no "${options.urlPattern.source}" line within ${timeoutMs} ms`)),
        timeoutMs,
      );
      lines.on('line', (line) => {
        const match = options.urlPattern.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited early (code ${code}, signal ${signal})`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    // Later stdout is not needed, but it must still be drained.
    lines.removeAllListeners('line');
    return { url, pid: child.pid!, stop };
  } catch (error) {
    await stop(1000);
    const detail = stderrTail.trim() ? `\n${stderrTail.trim()}` : '';
    throw new Error(`could not start node ${args.join(' ')}: ${(error as Error).message}${detail}`, {
      cause: error,
    });
  }
}

// ---------------------------------------------------------------- formatting

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(3);
}

/** Progress lines go to stderr so stdout stays the benchmark output proper. */
export function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
