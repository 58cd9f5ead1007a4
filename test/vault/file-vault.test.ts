// The file vault: keys are private to the user, stable, and one winner when processes race.
import { ops } from '../../src/backend/operations/index.ts';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FileKeyVault, VaultError } from '../../src/vault/index.ts';
import { tempDir } from '../helpers.ts';

const dirs: (() => void)[] = [];
afterEach(() => dirs.splice(0).forEach((cleanup) => cleanup()));

it('creates a 32-byte key once, mode 0600, and returns the same bytes after reopening', () => {
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  const first = new FileKeyVault(dir).secret('service-signing-ed25519');
  expect(first).toHaveLength(32);
  expect(statSync(join(dir, 'keys', 'service-signing-ed25519.key')).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, 'keys')).mode & 0o777).toBe(0o700);
  expect(new FileKeyVault(dir).secret('service-signing-ed25519').equals(first)).toBe(true);
  expect(() => new FileKeyVault(dir).secret('../escape')).toThrow(VaultError);
});

it('four processes racing to create the same key all end up with one key', async () => {
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  const script = `import { FileKeyVault } from ${JSON.stringify(new URL('../../src/vault/index.ts', import.meta.url).pathname)};
process.stdout.write(new FileKeyVault(process.argv[1]).secret('raced').toString('hex'));`;
  const run = () =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    });
  const keys = await Promise.all([run(), run(), run(), run()]);
  expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
  expect(new Set(keys).size).toBe(1);
});

it('a store refuses to start on keys other than the ones it was written with', async () => {
  const { Service } = await import('../../src/backend/service.ts');
  const { rmSync } = await import('node:fs');
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  const first = new Service({ dataDir: dir });
  const { org_id } = await first.invoke(ops.createOrg, undefined, { name: 'Acme' });
  first.close();
  rmSync(join(dir, 'keys'), { recursive: true });
  expect(() => new Service({ dataDir: dir })).toThrow(/not the one this store was written with/);
  expect(org_id).toMatch(/^org_/);
});
