// Kills the sealed-file crash worker (seal-worker.ts) at one of its progress events, for the crash
// suites of protect, open in place and wrap.
import { expect } from 'vitest';
import { childEnv, spawnNode, waitForOutput } from './procs.ts';

export type WorkerOp = 'protect' | 'open' | 'wrap' | 'wrap-remove';

/**
 * Runs the worker on `path` until its event `at` (held there with `stop`, or racing on with `race`)
 * and kills it. Answers the step it was at (undefined when it finished first) and its pid. With
 * `raceMayFinish`, a racing worker that ended just before the kill landed is accepted: the finished
 * state is one to check too.
 */
export async function killWorkerAt(
  dataDir: string,
  op: WorkerOp,
  path: string,
  at: number,
  mode: 'stop' | 'race',
  { raceMayFinish = false }: { raceMayFinish?: boolean } = {},
): Promise<{ step: string | undefined; pid: number }> {
  const worker = spawnNode(
    ['test/e2e/seal-worker.ts'],
    childEnv({
      SVC_HOME: dataDir,
      SVC_WORKER_OP: op,
      SVC_WORKER_FILE: path,
      SVC_WORKER_AT: String(at),
      SVC_WORKER_MODE: mode,
    }),
  );
  const said = await Promise.race([
    waitForOutput(worker, 'stdout', '\n', 30_000).then(() => worker.output().stdout),
    // A worker that fails says why; the wait above then reports it with its output.
    worker.exited.then((exit) => `exited ${exit.code}: ${exit.stderr}`),
  ]);
  if (said.startsWith('finished')) {
    await worker.exited;
    return { step: undefined, pid: worker.child.pid! };
  }
  expect(said, said).toMatch(/^at \d+ \w+/);
  worker.child.kill('SIGKILL');
  const exit = await worker.exited;
  if (mode === 'race' && raceMayFinish && exit.signal === null) expect(exit.code, exit.stderr).toBe(0);
  else expect(exit.signal).toBe('SIGKILL');
  return { step: said.split(' ')[2]!.trim(), pid: worker.child.pid! };
}
