// age encryption of local files and strings (docs/VAULT.md, "age files"): what `svc encrypt`,
// `svc decrypt`, svc_encrypt and svc_decrypt share. The gate decides before anything is read;
// outputs are written whole or not at all; decrypted files are private to their owner.
import { constants, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileAtomic } from '../config/paths.ts';
import {
  AgeError,
  decryptAge,
  encryptAge,
  parseIdentityFile,
  type AgeTo,
  type AgeWith,
} from '../vault/age.ts';
import { ServiceError } from './errors.ts';
import type { Admission } from './seal-files.ts';

/**
 * The largest input encrypted or decrypted at once: age files are processed in memory here, so
 * that nothing is written before the whole file has authenticated. Larger files: `svc protect`.
 */
export const AGE_MAX_BYTES = 64 * 1024 * 1024;
/** An identity file holds a few lines; anything larger is not one. */
const IDENTITY_FILE_MAX_BYTES = 64 * 1024;

/** Where the input comes from: a file, or bytes already read (a string, standard input). */
export type AgeInput = { path: string } | { bytes: Uint8Array };
/** What opens a file: identities, an identity file (read by path, never passed as text), or a passphrase. */
export type AgeKeySource = AgeWith | { identityFile: string };

/** The paths an operation reads and writes, for the gate to decide on before anything happens. */
export interface AgePaths {
  read: string[];
  write: string[];
}

interface Common {
  input: AgeInput;
  /** A new file for the output; absent: the output is returned. */
  out?: string | undefined;
  /** Replace `out` if it exists (the person's own command asked for it); tools never do. */
  overwrite?: boolean;
  /** The gate's decision on the paths read and written: nothing is read before it allows. */
  admit?: ((paths: AgePaths) => Promise<Admission>) | undefined;
}

export interface EncryptRequest extends Common {
  to: AgeTo;
  armor?: boolean;
  scryptLogN?: number;
}

export interface DecryptRequest extends Common {
  key: AgeKeySource;
}

export interface AgeDone {
  /** Bytes of the input read. */
  bytes_in: number;
  /** Bytes of the output. */
  bytes_out: number;
  out_path: string | null;
  /** The output, when no `out` was given. */
  output?: Uint8Array;
}

/** age's error codes, as the service's: a key that does not fit is a refusal, a damaged file is corrupt. */
const SERVICE_CODE: Record<AgeError['code'], ServiceError['code']> = {
  bad_recipient: 'invalid_request',
  bad_identity: 'invalid_request',
  empty_passphrase: 'invalid_request',
  not_age: 'invalid_request',
  needs_passphrase: 'invalid_request',
  needs_identity: 'invalid_request',
  wrong_passphrase: 'forbidden',
  no_identity_matches: 'forbidden',
  corrupt: 'sealed_corrupt',
};

function serviceError(error: unknown, what: string): unknown {
  if (!(error instanceof AgeError)) return error;
  return new ServiceError(SERVICE_CODE[error.code], `${what}: ${error.message}`, { age: error.code });
}

/** Encrypts a file or bytes as an age file, to a new file or returned. */
export async function encryptLocal(request: EncryptRequest): Promise<AgeDone> {
  const { source, out } = await admitted(request, []);
  const plaintext = await readInput(request.input, source);
  try {
    const options: { armor?: boolean; scryptLogN?: number } = { armor: request.armor === true };
    if (request.scryptLogN !== undefined) options.scryptLogN = request.scryptLogN;
    const file = await encryptAge(plaintext, request.to, options).catch((error: unknown) => {
      throw serviceError(error, 'nothing was encrypted');
    });
    // An age file reveals nothing without its key: it keeps ordinary permissions.
    return finish(plaintext.length, file, out, 0o644, request.overwrite === true);
  } finally {
    if (source !== null) plaintext.fill(0);
  }
}

/** Decrypts an age file, binary or armored, to a new private file or returned. */
export async function decryptLocal(request: DecryptRequest): Promise<AgeDone> {
  const identityFile = 'identityFile' in request.key ? resolve(request.key.identityFile) : null;
  const { source, out } = await admitted(request, identityFile === null ? [] : [identityFile]);
  const file = await readInput(request.input, source);
  const key: AgeWith =
    'identityFile' in request.key ? { identities: await readIdentityFile(identityFile!) } : request.key;
  const what = `${source ?? 'the input'} was not decrypted`;
  const plaintext = await decryptAge(file, key).catch((error: unknown) => {
    throw serviceError(error, what);
  });
  try {
    return finish(file.length, plaintext, out, 0o600, request.overwrite === true);
  } finally {
    if (out !== null) plaintext.fill(0);
  }
}

async function admitted(request: Common, alsoRead: string[]) {
  const source = 'path' in request.input ? resolve(request.input.path) : null;
  const out = request.out === undefined ? null : resolve(request.out);
  if (out !== null && !request.overwrite && existsSync(out)) {
    throw new ServiceError(
      'conflict',
      `${out} already exists: name a file that does not, or remove it first`,
    );
  }
  if (request.admit) {
    const admission = await request.admit({
      read: [...(source === null ? [] : [source]), ...alsoRead],
      write: out === null ? [] : [out],
    });
    if (!admission.allowed) {
      throw new ServiceError(
        'forbidden',
        admission.message ?? 'the read gate did not allow it; nothing was done',
        {
          outcome: admission.outcome,
          rule_id: admission.rule_id,
          audit_id: admission.audit_id,
        },
      );
    }
  }
  return { source, out };
}

function finish(
  bytesIn: number,
  output: Uint8Array,
  out: string | null,
  mode: number,
  overwrite: boolean,
): AgeDone {
  if (out === null) return { bytes_in: bytesIn, bytes_out: output.length, out_path: null, output };
  if (!overwrite && existsSync(out)) {
    throw new ServiceError('conflict', `${out} appeared meanwhile, so it was not overwritten`);
  }
  // Beside it, flushed, renamed: a crash leaves the old file or the whole new one, never a part.
  writeFileAtomic(out, output, mode);
  return { bytes_in: bytesIn, bytes_out: output.length, out_path: out };
}

async function readInput(input: AgeInput, path: string | null): Promise<Uint8Array> {
  if (!('path' in input)) {
    if (input.bytes.length > AGE_MAX_BYTES) throw tooLarge('the input');
    return input.bytes;
  }
  return readFileLimited(path!, AGE_MAX_BYTES, () => tooLarge(path!));
}

async function readIdentityFile(path: string): Promise<string[]> {
  const bytes = await readFileLimited(
    path,
    IDENTITY_FILE_MAX_BYTES,
    () => new ServiceError('invalid_request', `${path} is too large to be an age identity file`),
  );
  try {
    return parseIdentityFile(new TextDecoder().decode(bytes));
  } catch (error) {
    throw serviceError(error, path);
  } finally {
    bytes.fill(0);
  }
}

/** Reads a regular file, refusing links and anything over `max` bytes before reading it. */
async function readFileLimited(path: string, max: number, tooBig: () => Error): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ServiceError('not_found', `no file at ${path}`);
    throw new ServiceError('forbidden', `svc cannot read ${path} (${code ?? 'error'})`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ServiceError('invalid_request', `${path} is not a file`);
    if (stat.size > max) throw tooBig();
    const bytes = await handle.readFile();
    if (bytes.length > max) throw tooBig();
    return bytes;
  } finally {
    await handle.close();
  }
}

const tooLarge = (what: string) =>
  new ServiceError(
    'payload_too_large',
    `${what} is larger than ${AGE_MAX_BYTES / 1048576} MiB, the most svc encrypts with age at once: seal large files with svc protect`,
  );
