// Crash: a process sealing a file in place, or opening one back in place, is SIGKILLed at every
// step (held still between two steps, so each kill lands exactly there) and at points wherever the
// work has got to. Afterwards the name always holds the original or the sealed file, never neither
// and never a half-written one; the sealed file opens to the original bytes; and what the killed
// process left beside it is private and removed by the next operation in that folder.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSealed, protectPaths } from '../../src/backend/seal-files.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { admitEverything } from '../helpers.ts';
import { crashSuite, killWorkerAt } from './seal-kill.ts';

const { original, dataDir, service, freshFile } = crashSuite('svc-seal-crash-');
const allow = admitEverything;

const isSealed = (path: string) => readFileSync(path).subarray(0, 8).equals(SEALED_MAGIC);

/** The sealed file's plaintext, opened in this process without writing anything. */
async function plaintextOf(path: string): Promise<Buffer> {
  const pieces: Buffer[] = [];
  await openSealed(service().ctx, path, {
    out: { kind: 'stdout', write: async (bytes) => void pieces.push(Buffer.from(bytes)) },
    by: 'user:test',
    admit: allow,
  });
  return Buffer.concat(pieces);
}

/** What the name holds now: the original, or a sealed file that opens to it. Anything else fails. */
async function stateOf(path: string): Promise<'original' | 'sealed'> {
  const bytes = readFileSync(path);
  if (bytes.equals(original)) return 'original';
  expect(isSealed(path), `${path} is neither the original nor sealed (${bytes.length} bytes)`).toBe(true);
  expect((await plaintextOf(path)).equals(original)).toBe(true);
  return 'sealed';
}

/**
 * What the killed process left beside the file: a sealed copy not yet renamed (ciphertext), or a
 * private folder (0700) of plaintext not yet released. The next operation in the folder removes it.
 */
function checkLeftovers(dir: string, pid: number): void {
  for (const name of readdirSync(dir).filter((n) => n !== 'data.bin')) {
    expect(name.startsWith(`.svc-seal-${pid}-`) || name.startsWith(`.svc-open-${pid}-`), name).toBe(true);
    if (name.startsWith('.svc-open-')) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o700);
    else expect(isSealed(join(dir, name)) || readFileSync(join(dir, name)).length === 0, name).toBe(true);
  }
}

describe('Crash while sealing or opening in place', () => {
  it('SIGKILL at every step of protect: the original until the rename, the sealed file after', async () => {
    const seen: string[] = [];
    for (let at = 1; ; at++) {
      const { dir, path } = freshFile();
      const { step, pid } = await killWorkerAt(dataDir, 'protect', path, at, 'stop');
      if (step === undefined) break;
      seen.push(step);
      const state = await stateOf(path);
      expect(state, `killed at ${step}`).toBe(step === 'replaced' || step === 'done' ? 'sealed' : 'original');
      checkLeftovers(dir, pid);
      // The next protect in the folder removes what was left, and the file ends sealed either way.
      await protectPaths(service().ctx, [dir], { by: 'user:test' });
      expect(readdirSync(dir)).toEqual(['data.bin']);
      expect(await stateOf(path)).toBe('sealed');
    }
    expect(seen).toEqual(['key_stored', ...Array(6).fill('chunk'), 'written', 'replaced', 'done']);
  });

  it('SIGKILL at every step of open in place: the sealed file until the rename, the original after', async () => {
    const seen: string[] = [];
    for (let at = 1; ; at++) {
      const { dir, path } = freshFile();
      await protectPaths(service().ctx, [path], { by: 'user:test' });
      const { step, pid } = await killWorkerAt(dataDir, 'open', path, at, 'stop');
      if (step === undefined) break;
      seen.push(step);
      const state = await stateOf(path);
      expect(state, `killed at ${step}`).toBe(step === 'released' ? 'original' : 'sealed');
      checkLeftovers(dir, pid);
      if (state === 'sealed') {
        // Opening again removes the private folder the killed process left, then releases the file.
        await openSealed(service().ctx, path, { out: { kind: 'in_place' }, by: 'user:test', admit: allow });
      }
      expect(readdirSync(dir)).toEqual(['data.bin']);
      expect(readFileSync(path).equals(original)).toBe(true);
    }
    expect(seen).toEqual(['admitted', ...Array(6).fill('chunk'), 'verified', 'receipted', 'released']);
  });

  it('SIGKILL wherever the work has got to: still the original or the sealed file', async () => {
    const states = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const op = round % 2 === 0 ? 'protect' : 'open';
      const { dir, path } = freshFile();
      if (op === 'open') await protectPaths(service().ctx, [path], { by: 'user:test' });
      const { pid } = await killWorkerAt(dataDir, op, path, 1 + ((round * 3) % 9), 'race');
      const state = await stateOf(path);
      states.add(`${op}:${state}`);
      checkLeftovers(dir, pid);
    }
    // The store is whole after every kill: both chains still verify.
    expect(service().ctx.chains.verifyAll('service')).toMatchObject({ ok: true });
    expect(service().ctx.chains.verifyAll('audit')).toMatchObject({ ok: true });
    expect(states.size).toBeGreaterThan(0);
  });
});
