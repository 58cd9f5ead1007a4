// requireGate on a "clean copy only" decision: a tool that reads files and takes their clean text
// goes ahead with `cleanOnly` (and gets the text from cleanTextOf); a tool that would read the
// file itself, or write it, is refused with a message that says what to do instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/backend/errors.ts';
import { cleanTextOf } from '../../src/backend/redact.ts';
import type { Decision } from '../../src/gate/engine.ts';
import type { GateAsk } from '../../src/gate/check.ts';
import { requireGate } from '../../src/tools/gate.ts';
import type { ToolDeps } from '../../src/tools/registry.ts';
import { tempDir } from '../helpers.ts';

const tmp = tempDir('svc-gate-clean-');
afterAll(() => tmp.cleanup());
const file = join(tmp.dir, 'customers.csv');

/** A tool's dependencies whose gate answers every question "clean copy only". */
const deps = {
  gate: {
    check: async (ask: GateAsk): Promise<{ decision: Decision; receipt_id: string }> => ({
      decision: {
        outcome: 'clean_copy',
        action: ask.kind === 'paths' ? ask.action : 'search',
        rule: { id: 'exports-clean', level: 'computer', effect: 'redact', reason: 'customer data' },
        path: file,
        explanation: `read of ${file} is allowed only as a clean copy`,
        to_change: 'edit or remove that rule',
        charges: [],
      },
      receipt_id: 'aud_7_00000000000000000000000000000000',
    }),
  },
  confirm: async () => 'no_form',
} as unknown as ToolDeps;
const asker = { cwd: tmp.dir, client: 'svc' };

describe('requireGate on a clean copy only', () => {
  it('lets a tool that takes clean text read, and the text it gets holds tokens, not values', async () => {
    const email = `${Math.random().toString(36).slice(2, 8).replace(/\d/g, 'q')}.roe@fastmail.fm`;
    writeFileSync(file, `id,email\n1,${email}\n`);
    const passed = await requireGate(deps, { kind: 'paths', action: 'read', paths: [file] }, asker, {
      cleanCopy: true,
    });
    expect(passed).toMatchObject({ cleanOnly: true, confirmed: false });
    expect(cleanTextOf(file)).toEqual({
      text: 'id,email\n1,[EMAIL_1]\n',
      values: 1,
      tokens_by_type: { EMAIL: 1 },
    });
    expect(cleanTextOf(tmp.dir)).toEqual({ unavailable: 'svc cannot read it', reason: 'unreadable' });
  });

  it.each([
    [
      'a read by a tool that reads the file itself',
      { kind: 'paths', action: 'read', paths: [file] } as GateAsk,
      /only a clean copy of .*customers\.csv.* nothing was read.*audit record aud_7_.*svc_redact/,
    ],
    [
      'a write',
      { kind: 'paths', action: 'write', paths: [file] } as GateAsk,
      /only a clean copy of .*customers\.csv, so write .* is not done/,
    ],
  ])('refuses %s, saying what to do', async (_name, ask, message) => {
    const refusal = await requireGate(deps, ask, asker).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect((refusal as ServiceError).code).toBe('forbidden');
    expect((refusal as ServiceError).message).toMatch(message);
    expect((refusal as ServiceError).details).toMatchObject({
      outcome: 'clean_copy',
      rule_id: 'exports-clean',
    });
  });
});
