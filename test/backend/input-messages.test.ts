// Messages of bad input: each names its field and says what it takes, for every operation in the
// registry; a message a schema gives itself is kept.
import { describe, expect, it } from 'vitest';
import { OPERATIONS, ops } from '../../src/backend/operations/index.ts';
import { parseInput } from '../../src/backend/invoke.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import type { Operation } from '../../src/backend/operation.ts';

function refused(operation: Operation, input: unknown): ServiceError {
  try {
    parseInput(operation, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error(`${operation.name} took ${JSON.stringify(input)}`);
}

const read = { table: 'agent_demo_records', columns: ['id'] };

describe('a bad input says what is required', () => {
  it.each([
    [
      ops.readRows,
      { table: 'agent_demo_records' },
      '`columns` is required: an array of strings (column names)',
    ],
    [
      ops.readRows,
      { ...read, columns: 'id' },
      '`columns` must be an array of strings (column names), not string',
    ],
    [ops.readRows, { ...read, limit: 500 }, '`limit` must be at most 200'],
    [ops.readRows, { ...read, limit: 2.5 }, '`limit` must be an integer from 1 to 200, not number'],
    [ops.readRows, { ...read, columns: [] }, '`columns` must hold at least 1 item'],
    [
      ops.readRows,
      { ...read, foo: 1 },
      'unknown field `foo`: remove it (the fields are table, columns, where, limit, purpose, handle)',
    ],
    [ops.readRows, [], 'the body must be an object, not an array'],
    [ops.computeDecision, { action: 'write' }, '`action` must be "classify" or "read" or "send"'],
    [
      ops.computeDecision,
      { destination: { recipientCount: -1 } },
      '`destination.recipientCount` must be at least 0',
    ],
    [
      ops.createFabricGrant,
      { subject_kid: '3f9a0c1d2e4b5a69', expires_at: 'tomorrow' },
      '`expires_at` must be a date-time with its offset, like 2030-01-31T12:00:00Z',
    ],
    [
      ops.fetchEnvelope,
      { handle: 'bot', blob_id: 'nope' },
      '`blob_id` must be a UUID (8-4-4-4-12 hexadecimal digits)',
    ],
    [
      ops.listInbox,
      { handle: 'Bob_X' },
      "`handle` is not in the form it takes (the agent's handle as its grant gave it: lower-case letters, digits and -): it must match /^[a-z0-9-]{1,64}$/",
    ],
    // A schema's own message is kept, after the field's path.
    [ops.createFabricGrant, { subject_kid: 'XYZ' }, 'subject_kid: must be 16 lowercase hex characters'],
  ] as [Operation, unknown, string][])('%#: %j', (operation, input, message) => {
    const error = refused(operation, input);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(`invalid request: ${message}`);
  });

  it('no operation in the registry answers zod’s own wording for a missing or mistyped field', () => {
    for (const operation of OPERATIONS) {
      for (const input of [{}, { __probe: [] }, 'text']) {
        let error: unknown;
        try {
          parseInput(operation, input);
        } catch (e) {
          error = e;
        }
        if (error === undefined) continue;
        expect(error, operation.name).toBeInstanceOf(ServiceError);
        const { issues } = (error as ServiceError).details as { issues: { path: string; message: string }[] };
        for (const issue of issues) {
          expect(issue.message, `${operation.name} ${issue.path}`).not.toMatch(
            /Invalid input|received undefined|expected \w+, received|NaN|Unrecognized key/,
          );
          if (/is required/.test(issue.message)) expect(issue.message).toContain(`\`${issue.path}\``);
        }
      }
    }
  });
});
