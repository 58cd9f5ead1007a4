// svc_encrypt and svc_decrypt: age files (docs/VAULT.md, "age files") that the `age` command reads
// and writes. Keys stay out of the model's context: encrypting takes public recipients only, and
// decrypting takes the path of an identity file, which the read gate must let the agent read.
// Passphrases are for the person at the CLI (`svc encrypt -p`): one in a tool argument would sit in
// the conversation. The core reads, writes and refuses (src/backend/age-files.ts).
import { resolve } from 'node:path';
import { z } from 'zod';
import type { AgePaths } from '../backend/age-files.ts';
import { ServiceError } from '../backend/errors.ts';
import type { GateAsk } from '../gate/check.ts';
import { AGE_RECIPIENT } from '../vault/age-recipient.ts';
import { admitAll } from './lock.ts';
import { cwdField } from './gate.ts';
import { defineTool, type ToolDeps } from './registry.ts';

/** The most plaintext svc_decrypt answers as text, like svc_open: a model's context is not a file transfer. */
export const DECRYPT_TEXT_MAX_BYTES = 64 * 1024;
/** The most svc_encrypt takes as `text`: larger content belongs in a file. */
const TEXT_MAX_CHARS = 64 * 1024;

const pathField = (what: string) => z.string().min(1).max(4096).optional().describe(what);

/** The gate's decision on what an operation reads and writes, asked before anything is read. */
function gateOf(deps: ToolDeps, cwd: string) {
  if (!deps.gate) {
    throw new ServiceError(
      'forbidden',
      'this server has no read gate, so it touches no file: use the tool through `svc mcp` on the computer that holds the files',
    );
  }
  return ({ read, write }: AgePaths) => {
    const asks: GateAsk[] = [];
    if (read.length > 0) asks.push({ kind: 'paths', action: 'read', paths: read });
    if (write.length > 0) asks.push({ kind: 'paths', action: 'write', paths: write });
    return admitAll(deps, asks, cwd);
  };
}

// ---------------------------------------------------------------- svc_encrypt

const EncryptInput = z
  .object({
    text: z.string().max(TEXT_MAX_CHARS).optional().describe('the text to encrypt (UTF-8); or give path'),
    path: pathField('a file to encrypt, absolute or relative to cwd; the gate must let you read it'),
    recipients: z
      .array(z.string().regex(AGE_RECIPIENT, 'an age recipient: age1…'))
      .min(1)
      .max(32)
      .describe('age recipients (public keys, age1…): only their identities can decrypt'),
    out: pathField(
      'write the age file to this new file (it must not exist); the gate must let you write it. Without it the armored age file comes back in the answer',
    ),
    armor: z
      .boolean()
      .optional()
      .describe('ASCII armor in the file too (always armored when answered in text)'),
    cwd: cwdField(),
  })
  .strict();

const EncryptOutput = z.object({
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  out_path: z.string().nullable(),
  armored: z.string().nullable().describe('the armored age file, when no out was given'),
  next: z.string(),
});

export const svcEncrypt = defineTool({
  name: 'svc_encrypt',
  group: 'find-lock',
  title: 'Encrypt to age recipients',
  description:
    'Encrypts a text or a file in the age format (age-encryption.org/v1) to one or more recipients (age1… public keys), so that the `age` command or svc_decrypt opens it with the matching identity. Give `text` or `path`. With `out`, the age file is written there (a new file); without it, the armored age file comes back in this answer, safe to share. Passphrases are not taken here: they would be in this conversation; the person encrypts with a passphrase with `svc encrypt -p`. To seal a file in place on this computer, use svc_protect instead.',
  credential: 'none',
  inputSchema: EncryptInput,
  outputSchema: EncryptOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    if ((input.text === undefined) === (input.path === undefined)) {
      throw new ServiceError('invalid_request', 'give exactly one of text or path');
    }
    const cwd = input.cwd ?? process.cwd();
    const out = input.out === undefined ? undefined : resolve(cwd, input.out);
    const touchesFiles = input.path !== undefined || out !== undefined;
    const { encryptLocal } = await import('../backend/age-files.ts');
    const done = await encryptLocal({
      input:
        input.path !== undefined
          ? { path: resolve(cwd, input.path) }
          : { bytes: new TextEncoder().encode(input.text) },
      to: { recipients: input.recipients },
      armor: input.armor === true || out === undefined,
      out,
      admit: touchesFiles ? gateOf(deps, cwd) : undefined,
    });
    const armored = done.output ? new TextDecoder().decode(done.output) : null;
    const next =
      done.out_path !== null
        ? `the holders of the recipients' identities decrypt it with \`age -d\` or svc_decrypt`
        : 'share the armored text as it is; it opens with `age -d` or svc_decrypt and the matching identity';
    const said =
      done.out_path !== null
        ? `encrypted ${done.bytes_in} bytes to ${done.out_path} (${done.bytes_out} bytes). ${next}`
        : `encrypted ${done.bytes_in} bytes. ${next}\n\n${armored}`;
    return {
      text: said,
      structured: {
        bytes_in: done.bytes_in,
        bytes_out: done.bytes_out,
        out_path: done.out_path,
        armored,
        next,
      },
    };
  },
});

// ---------------------------------------------------------------- svc_decrypt

const DecryptInput = z
  .object({
    path: pathField('the age file (binary or armored), absolute or relative to cwd'),
    armored: z
      .string()
      .max(4 * TEXT_MAX_CHARS)
      .optional()
      .describe('an armored age file given as text (-----BEGIN AGE ENCRYPTED FILE-----); or give path'),
    identity_file: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'an age identity file (AGE-SECRET-KEY-1… lines, as age-keygen writes), by path: the gate must let you read it, and its keys never enter this conversation',
      ),
    out: pathField(
      'write the plaintext to this new file, private to its owner (it must not exist); the gate must let you write it',
    ),
    as_text: z
      .boolean()
      .optional()
      .describe(
        `answer the plaintext as text (UTF-8, at most ${DECRYPT_TEXT_MAX_BYTES} bytes), writing nothing`,
      ),
    cwd: cwdField(),
  })
  .strict();

const DecryptOutput = z.object({
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  out_path: z.string().nullable(),
  text: z.string().nullable().describe('the plaintext, only when as_text was asked'),
  next: z.string(),
});

export const svcDecrypt = defineTool({
  name: 'svc_decrypt',
  group: 'find-lock',
  title: 'Decrypt an age file',
  description:
    'Decrypts an age file (binary or armored, made by `age`, `svc encrypt` or svc_encrypt) with the identities of an identity file given by its path. Give the file as `path` or `armored` text, and where the plaintext goes, exactly one of: `out` (a new file, mode 0600) or `as_text` (small UTF-8 plaintext comes back in this answer). The read gate must let you read the file and the identity file, and write `out`. Files encrypted with a passphrase are for the person: `svc decrypt -p`. A damaged file, or one for other recipients, is refused with the reason; nothing of it is released.',
  credential: 'none',
  inputSchema: DecryptInput,
  outputSchema: DecryptOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    if ((input.path === undefined) === (input.armored === undefined)) {
      throw new ServiceError('invalid_request', 'give exactly one of path or armored');
    }
    if ((input.out === undefined) === (input.as_text !== true)) {
      throw new ServiceError(
        'invalid_request',
        'say where the plaintext goes, exactly one of: out (a new file) or as_text: true',
      );
    }
    const cwd = input.cwd ?? process.cwd();
    const out = input.out === undefined ? undefined : resolve(cwd, input.out);
    const { decryptLocal } = await import('../backend/age-files.ts');
    const done = await decryptLocal({
      input:
        input.path !== undefined
          ? { path: resolve(cwd, input.path) }
          : { bytes: new TextEncoder().encode(input.armored) },
      key: { identityFile: resolve(cwd, input.identity_file) },
      out,
      admit: gateOf(deps, cwd),
    });
    let text: string | null = null;
    if (done.output) {
      try {
        if (done.output.length > DECRYPT_TEXT_MAX_BYTES) {
          throw new ServiceError(
            'payload_too_large',
            `the plaintext is ${done.output.length} bytes, more than ${DECRYPT_TEXT_MAX_BYTES} to answer as text: decrypt it to a file with out`,
          );
        }
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(done.output);
        } catch {
          throw new ServiceError(
            'invalid_request',
            'the plaintext is not UTF-8 text: decrypt it to a file with out',
          );
        }
      } finally {
        done.output.fill(0);
      }
    }
    const next =
      text !== null
        ? 'the text is for this task only: do not copy it into files, logs or messages'
        : 'the copy is plaintext: remove it when you are done, or seal it with svc_protect';
    const said =
      text !== null
        ? `decrypted ${done.bytes_out} bytes as text. ${next}\n\n${text}`
        : `decrypted ${done.bytes_out} bytes to ${done.out_path}. ${next}`;
    return {
      text: said,
      structured: { bytes_in: done.bytes_in, bytes_out: done.bytes_out, out_path: done.out_path, text, next },
    };
  },
});
