// The crash suites of protect, open in place and wrap: their shared set-up, and the kill of the
// crash worker (seal-worker.ts) at one of its progress events.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, killAll, spawnNode, waitForOutput } from './procs.ts';

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

/**
 * What both crash suites start from: six chunks of random bytes (the last one short), a data dir
 * with a service of this process on it, and fresh files holding those bytes, one folder each. The
 * workers left running are killed after each test; everything is removed after the suite.
 */
export function crashSuite(prefix: string) {
  const original = randomBytes(5 * CRASH_CHUNK + 100);
  const home = tempDir(prefix);
  const dataDir = join(home.dir, 'svc');
  let service: Service | undefined;
  let runs = 0;
  beforeAll(() => {
    service = new Service({ dataDir });
  });
  afterEach(async () => {
    await killAll();
  });
  afterAll(async () => {
    await killAll();
    service?.close();
    home.cleanup();
  });
  return {
    original,
    dataDir,
    service: () => service!,
    /** A fresh folder holding `data.bin` with the original bytes. */
    freshFile(): { dir: string; path: string } {
      const dir = join(home.dir, `run-${runs++}`);
      mkdirSync(dir);
      const path = join(dir, 'data.bin');
      writeFileSync(path, original);
      return { dir, path };
    },
  };
}

/** The sealed-file format's default chunk size, which the crash files span. */
export const CRASH_CHUNK = 64 * 1024;
