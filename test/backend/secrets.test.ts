// Vault secrets: set (and replace), list without values, remove, every change receipted by name;
// values sealed at rest and bound to their name; names and values that cannot be used refused.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import {
  listSecrets,
  missingSecrets,
  removeSecret,
  secretValues,
  setSecret,
} from '../../src/backend/secrets.ts';
import { tempDir } from '../helpers.ts';

const home = tempDir('svc-secrets-');
const dataDir = join(home.dir, 'svc');
let service: Service;
const by = 'user:test';
const VALUE = 'sk_live_7Qh2x9Lm4Pz8Rt6Wv3Ny';

beforeAll(() => {
  service = new Service({ dataDir });
});
afterAll(() => {
  service.close();
  home.cleanup();
});

/** Every byte the store keeps on disk, as text. */
const storeBytes = () =>
  readdirSync(dataDir)
    .filter((f) => f.startsWith('svc.db'))
    .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    .join('');

describe('secrets', () => {
  it('sets, replaces, lists and removes, receipting each by name only', async () => {
    const first = await setSecret(service.ctx, 'API_TOKEN', 'first-value-123', { by });
    expect(first.created).toBe(true);
    const second = await setSecret(service.ctx, 'API_TOKEN', VALUE, { by });
    expect(second.created).toBe(false);
    expect((await secretValues(service.ctx, ['API_TOKEN'])).get('API_TOKEN')).toBe(VALUE);

    const listed = await listSecrets(service.ctx);
    expect(listed.map((s) => s.name)).toEqual(['API_TOKEN']);
    expect(JSON.stringify(listed)).not.toContain(VALUE);

    const receipt = await service.ctx.chains.receipt(second.receipt_id);
    expect(receipt?.payload.kind).toBe('secret.set');
    expect(JSON.stringify(receipt)).not.toContain(VALUE);
    expect(storeBytes()).not.toContain(VALUE);

    const removed = await removeSecret(service.ctx, 'API_TOKEN', { by });
    expect((await service.ctx.chains.receipt(removed.receipt_id))?.payload.kind).toBe('secret.remove');
    expect(await listSecrets(service.ctx)).toEqual([]);
    expect(await missingSecrets(service.ctx, ['API_TOKEN'])).toEqual(['API_TOKEN']);
    await expect(removeSecret(service.ctx, 'API_TOKEN', { by })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('binds a sealed value to its name: copied to another row it does not open', async () => {
    await setSecret(service.ctx, 'ONE_KEY', 'value-of-one', { by });
    await setSecret(service.ctx, 'TWO_KEY', 'value-of-two', { by });
    await service.ctx.store.write(() =>
      service.ctx.store.run(
        'UPDATE secrets SET sealed_value = (SELECT sealed_value FROM secrets WHERE name = ?) WHERE name = ?',
        'ONE_KEY',
        'TWO_KEY',
      ),
    );
    await expect(secretValues(service.ctx, ['TWO_KEY'])).rejects.toMatchObject({ code: 'sealed_corrupt' });
  });

  it.each([
    ['a lower-case name', 'api_token', 'value-1234'],
    ['a name starting with a digit', '1TOKEN', 'value-1234'],
    ['a name with a dash', 'API-TOKEN', 'value-1234'],
    ['a name of 129 characters', `A${'B'.repeat(128)}`, 'value-1234'],
    ['a value too short to mask', 'SHORT', 'abc'],
    ['a value with NUL', 'NUL_VALUE', 'abc\u0000def'],
    ['a value over 64 KiB', 'BIG', 'x'.repeat(64 * 1024 + 1)],
  ])('refuses %s', async (_, name, value) => {
    const error = await setSecret(service.ctx, name, value, { by }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('invalid_request');
    expect((error as ServiceError).message).not.toContain(value);
  });
});
