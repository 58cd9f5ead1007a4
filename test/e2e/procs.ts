// Child-process helpers for the end-to-end and CLI suites: run the real `svc` command (and other
// scripts) under this Node, wait for `svc serve` to print its URL, and kill whatever is left over.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SVC_BIN = 'bin/svc.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  /** Everything written so far (grows while the process runs). */
  output(): { stdout: string; stderr: string };
  /** Resolves when the process has exited and its pipes are drained. */
  exited: Promise<Exit>;
}

/** Children that have not exited yet; `killAll` ends them (used in afterEach/afterAll). */
const live = new Set<ChildProcess>();

/**
 * A clean environment for a child: no inherited SVC_* variables but SVC_VAULT, plus `extra`.
 * SVC_VAULT stays because the test runner sets it, so that no child keeps keys in the developer's
 * keychain.
 */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if ((key === 'SVC_VAULT' || !key.startsWith('SVC_')) && value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Starts `node <args>` in the repository root, or in `cwd` (the script's path is then absolute). */
export function spawnNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { stdin?: boolean; cwd?: string } = {},
): Spawned {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', (error) => {
      live.delete(child);
      reject(error);
    });
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** Runs `svc <args>` to completion (killed after `timeoutMs`), in the repository root or `cwd`. */
export async function runSvc(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<Exit & { json: () => unknown }> {
  const spawned = spawnNode([join(REPO_ROOT, SVC_BIN), ...args], env, { cwd });
  const timer = setTimeout(() => spawned.child.kill('SIGKILL'), timeoutMs);
  try {
    const exit = await spawned.exited;
    return {
      ...exit,
      json: () => {
        try {
          return JSON.parse(exit.stdout) as unknown;
        } catch {
          throw new Error(
            `svc ${args.join(' ')} did not print JSON:\n${exit.stdout}\nstderr:\n${exit.stderr}`,
          );
        }
      },
    };
  } finally {
    clearTimeout(timer);
  }
}

export interface ServeProcess extends Spawned {
  url: string;
}

const SERVING = /^svc is serving on (http:\/\/127\.0\.0\.1:\d+)$/;

/** Starts `svc serve --port 0` and resolves with its URL once the first stdout line names it. */
export async function startServe(env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<ServeProcess> {
  const spawned = spawnNode([SVC_BIN, 'serve', '--port', '0'], env);
  const url = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spawned.child.kill('SIGKILL');
      const { stdout, stderr } = spawned.output();
      reject(new Error(`svc serve ${why}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no URL within ${timeoutMs} ms`), timeoutMs);
    const onData = () => {
      const { stdout } = spawned.output();
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      spawned.child.stdout!.off('data', onData);
      const match = SERVING.exec(stdout.slice(0, newline));
      if (!match) return fail(`printed an unexpected first line: ${stdout.slice(0, newline)}`);
      settled = true;
      clearTimeout(timer);
      resolve(match[1]!);
    };
    spawned.child.stdout!.on('data', onData);
    spawned.exited.then(
      (exit) => fail(`exited (code ${exit.code}, signal ${exit.signal}) before printing its URL`),
      (error: Error) => fail(`could not start: ${error.message}`),
    );
  });
  return { ...spawned, url };
}

/**
 * Resolves once `text` has appeared on the child's `stream` (already there counts). It is driven by
 * the stream's 'data' events, so a test acts the moment the child says something happened rather
 * than after a guessed delay; `timeoutMs` only bounds the wait, and an exit first fails it.
 */
export function waitForOutput(
  spawned: Spawned,
  stream: 'stdout' | 'stderr',
  text: string,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const pipe = spawned.child[stream]!;
    const fail = (why: string) => {
      done();
      const { stdout, stderr } = spawned.output();
      reject(new Error(`${why} before \`${text}\` on ${stream}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    // spawnNode's own listener was added first, so output() already holds the chunk seen here.
    const check = () => {
      if (!spawned.output()[stream].includes(text)) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      pipe.off('data', check);
    };
    pipe.on('data', check);
    spawned.exited.then(
      (exit) => fail(`the process exited (code ${exit.code}, signal ${exit.signal})`),
      (error: Error) => fail(`the process failed: ${error.message}`),
    );
    check();
  });
}

/** Kills every child still running and waits for them to go. */
export async function killAll(): Promise<void> {
  const waits = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}

/** Lines of stderr that are not Node's own warnings (ExperimentalWarning and the like). */
export function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) => line && !/^\(node:\d+\) \w*Warning:/.test(line) && !line.startsWith('(Use `node --trace-'),
    );
}
