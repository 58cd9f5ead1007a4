// Crash: a process wrapping a file into the archive is SIGKILLed at every step (held still between
// two steps, so each kill lands exactly there) and at points wherever the work has got to.
// Afterwards the original is intact (with --remove: until its archived copy was indexed), and the
// archive holds either nothing or a complete object that restores to the original; what the killed
// process left in the archive is ciphertext, and the next wrap removes it.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveDir, restoreArchived, wrapPaths } from '../../src/backend/archive.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { admitEverything } from '../helpers.ts';
import { crashSuite, killWorkerAt } from './seal-kill.ts';

const { original, dataDir, service, freshFile } = crashSuite('svc-wrap-crash-');
const allow = admitEverything;
const archive = () => archiveDir(service().ctx);
const objects = () => readdirSync(join(archive(), 'objects'));

/** A fresh file with the original bytes, and an empty archive (the same content would be deduplicated). */
function fresh(): string {
  rmSync(archive(), { recursive: true, force: true });
  return freshFile().path;
}

/** The archive after a kill: no object, or one complete object that restores to the original. */
async function archived(pid: number): Promise<'nothing' | 'object'> {
  for (const name of readdirSync(archive()).filter((n) => n !== 'objects')) {
    expect(name.startsWith(`.svc-wrap-${pid}-`), name).toBe(true);
    const bytes = readFileSync(join(archive(), name));
    expect(bytes.length === 0 || bytes.subarray(0, 8).equals(SEALED_MAGIC), name).toBe(true);
  }
  const names = objects();
  expect(names.length).toBeLessThanOrEqual(1);
  if (names.length === 0) return 'nothing';
  const pieces: Buffer[] = [];
  await restoreArchived(service().ctx, `arc_${names[0]}`, {
    out: { kind: 'stdout', write: async (bytes) => void pieces.push(Buffer.from(bytes)) },
    by: 'user:test',
    admit: allow,
  });
  expect(Buffer.concat(pieces).equals(original)).toBe(true);
  return 'object';
}

describe('Crash while wrapping into the archive', () => {
  it.each(['wrap', 'wrap-remove'] as const)(
    'SIGKILL at every step of %s: the original intact, the archive empty or whole',
    async (op) => {
      const seen: string[] = [];
      for (let at = 1; ; at++) {
        const path = fresh();
        const { step, pid } = await killWorkerAt(dataDir, op, path, at, 'stop');
        if (step === undefined) break;
        seen.push(step);
        const stored = ['stored', 'indexed', 'removed', 'done'].includes(step);
        expect(await archived(pid), `killed at ${step}`).toBe(stored ? 'object' : 'nothing');
        // The original goes only with --remove, and only once its copy is indexed.
        const removed = step === 'removed' || (op === 'wrap-remove' && step === 'done');
        if (removed) expect(existsSync(path), `killed at ${step}`).toBe(false);
        else expect(readFileSync(path).equals(original), `killed at ${step}`).toBe(true);
        // The next wrap removes what was left and ends with one indexed object either way.
        if (!removed) {
          const again = await wrapPaths(service().ctx, [path], { by: 'user:test' });
          expect(again.wrapped).toHaveLength(1);
          expect(readdirSync(archive()).sort()).toEqual(['objects']);
          expect(objects()).toHaveLength(1);
        }
      }
      const steps = ['chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'written', 'stored', 'indexed'];
      expect(seen).toEqual([...steps, ...(op === 'wrap-remove' ? ['removed'] : []), 'done']);
    },
  );

  it('SIGKILL wherever the work has got to: the original intact, the archive empty or whole', async () => {
    for (let round = 0; round < 6; round++) {
      const path = fresh();
      const { pid } = await killWorkerAt(dataDir, 'wrap', path, 1 + ((round * 3) % 9), 'race', {
        raceMayFinish: true,
      });
      await archived(pid);
      expect(readFileSync(path).equals(original)).toBe(true);
    }
    expect(service().ctx.chains.verifyAll('service')).toMatchObject({ ok: true });
  });
});
