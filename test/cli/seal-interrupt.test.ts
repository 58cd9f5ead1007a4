// `svc protect`, `svc open --out` and `svc wrap` interrupted (SIGINT, SIGTERM) while they write:
// the process removes its temporary file (a sealed copy, a private folder of plaintext, an archive
// object) before it ends by the signal, so nothing of the file is left beside it. Each run is
// caught in flight: the test waits for the temporary name to appear (a file-system event), stops
// the process there, checks it is still there, then sends the signal.
import { existsSync, mkdirSync, readFileSync, readdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { protectPaths } from '../../src/backend/seal-files.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { cliComputer } from './computer.ts';
import { killAll, REPO_ROOT, SVC_BIN, spawnNode } from '../e2e/procs.ts';

const { dir: tmpDir, svcHome, env } = cliComputer('svc-seal-interrupt-');
/** Large enough that each command writes for a good while after its temporary name appears. */
const content = Buffer.alloc(64 * 1024 * 1024, 'plaintext that must not be left behind\n');
let service: Service;
let runs = 0;

beforeAll(() => {
  service = new Service({ dataDir: svcHome });
  // The archive's folder, made now so that it can be watched before the first wrap.
  mkdirSync(join(svcHome, 'archive'), { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  await killAll();
});
afterAll(() => service.close());

function freshFile(): { dir: string; path: string } {
  const dir = join(tmpDir, `run-${runs++}`);
  mkdirSync(dir);
  const path = join(dir, 'data.bin');
  writeFileSync(path, content);
  return { dir, path };
}

/** Names starting with `prefix` in `folder`. */
const tempsIn = (folder: string, prefix: string) => readdirSync(folder).filter((n) => n.startsWith(prefix));

/**
 * Runs `svc args` until `prefix` appears in `folder`, stops it there, and interrupts it with
 * `signal`. Answers how it ended.
 */
async function interruptWhileWriting(args: string[], folder: string, prefix: string, signal: NodeJS.Signals) {
  const watcher = watch(folder);
  try {
    const appeared = new Promise<string>((resolve) =>
      watcher.on('change', (_event, name) => {
        if (String(name).startsWith(prefix)) resolve(String(name));
      }),
    );
    const run = spawnNode([join(REPO_ROOT, SVC_BIN), ...args], env);
    const name = await Promise.race([
      appeared,
      run.exited.then((exit) => {
        throw new Error(`svc ${args[0]} ended before writing (${exit.code}): ${exit.stderr}`);
      }),
    ]);
    run.child.kill('SIGSTOP');
    expect(existsSync(join(folder, name)), `${name} while svc ${args[0]} is stopped`).toBe(true);
    run.child.kill(signal);
    run.child.kill('SIGCONT');
    return await run.exited;
  } finally {
    watcher.close();
  }
}

describe('an interrupted command leaves no temporary file behind', () => {
  it('protect, on SIGINT: the original as it was, no sealed copy beside it', async () => {
    const { dir, path } = freshFile();
    const exit = await interruptWhileWriting(['protect', path], dir, '.svc-seal-', 'SIGINT');
    expect(exit.signal, exit.stderr).toBe('SIGINT');
    expect(readdirSync(dir)).toEqual(['data.bin']);
    expect(readFileSync(path).equals(content)).toBe(true);
  });

  it('open --out, on SIGTERM: no private folder of plaintext, no output file', async () => {
    const { dir, path } = freshFile();
    await protectPaths(service.ctx, [path], { by: 'user:test' });
    const exit = await interruptWhileWriting(
      ['open', path, '--out', join(dir, 'opened.bin')],
      dir,
      '.svc-open-',
      'SIGTERM',
    );
    expect(exit.signal, exit.stderr).toBe('SIGTERM');
    expect(readdirSync(dir)).toEqual(['data.bin']);
    expect(readFileSync(path).subarray(0, 8).equals(SEALED_MAGIC)).toBe(true);
  });

  it('open in place, on SIGTERM: still the sealed file, nothing beside it', async () => {
    const { dir, path } = freshFile();
    await protectPaths(service.ctx, [path], { by: 'user:test' });
    const exit = await interruptWhileWriting(['open', path], dir, '.svc-open-', 'SIGTERM');
    expect(exit.signal, exit.stderr).toBe('SIGTERM');
    expect(readdirSync(dir)).toEqual(['data.bin']);
    expect(readFileSync(path).subarray(0, 8).equals(SEALED_MAGIC)).toBe(true);
  });

  it('wrap, on SIGTERM: no object being written is left in the archive', async () => {
    const { dir, path } = freshFile();
    const archive = join(svcHome, 'archive');
    const exit = await interruptWhileWriting(['wrap', path], archive, '.svc-wrap-', 'SIGTERM');
    expect(exit.signal, exit.stderr).toBe('SIGTERM');
    expect(tempsIn(archive, '.svc-wrap-')).toEqual([]);
    expect(readdirSync(dir)).toEqual(['data.bin']);
  });
});
