// The reversible mapping of a clean copy, kept only when the owner asks (docs/SCAN.md, Clean
// copies): token to value, sealed (AES-256-GCM) under a key the vault derives for that copy alone
// and bound to its id, stored with where the copy came from, and receipted on the service chain.
// Putting the values back into a file of the copy is a read of the original: the read gate
// decides it on the original path (and on the file given), and the reversal is receipted whether
// it goes ahead or not.
// Values are never logged, printed or returned: only counts, paths and ids.
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { tokenBody, type Form } from '../scan/redact.ts';
import { deriveKey } from '../vault/derive.ts';
import { seal, unseal } from '../vault/seal.ts';
import { newId, nowIso, type Context } from './context.ts';
import type { Receipt } from './chains.ts';
import { ServiceError } from './errors.ts';
import type { RecordedDecision } from './gate-record.ts';
import { Refusal, receiptRefusals } from './governance.ts';
import { shellQuote } from '../config/command.ts';
import { writeNewFileAtomic } from '../config/paths.ts';
import { encodeText, readWholeText } from './scan-files.ts';
import type { Admission } from './seal-files.ts';

/** The key one copy's mapping is sealed under: HKDF over the vault's data secret, bound to the copy. */
function mappingKey(ctx: Context, copyId: string) {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-clean-copy-mapping-v1',
    salt: 'svc',
    context: [copyId],
  });
}

const aadOf = (copyId: string) => new TextEncoder().encode(`svc-clean-copy:${copyId}`);

/** Keeps a copy's mapping sealed in the store, receipted; answers the copy's id and the receipt's. */
export async function keepMapping(
  ctx: Context,
  report: {
    source: string;
    out: string;
    kind: 'file' | 'folder';
    tokens_by_type: Record<string, number>;
  },
  /** Token and value, a token once for each way the copy's files wrote its value (TokenAllocator.forms). */
  forms: readonly Form[],
): Promise<{ copy_id: string; receipt_id: string }> {
  const copyId = newId('copy');
  const sealed = seal(mappingKey(ctx, copyId), JSON.stringify(forms), aadOf(copyId));
  const tokens = new Set(forms.map(([token]) => token)).size;
  return ctx.store.write(async () => {
    const receipt = await ctx.chains.append('service', {
      kind: 'clean_copy.keep',
      org_id: null,
      signed_at: nowIso(ctx),
      body: {
        copy_id: copyId,
        source: report.source,
        out: report.out,
        copy_kind: report.kind,
        tokens_by_type: report.tokens_by_type,
        values: tokens,
      },
    });
    await ctx.store.run(
      `INSERT INTO clean_copies (copy_id, source, out, kind, tokens, sealed_mapping, created_at, receipt_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      copyId,
      report.source,
      report.out,
      report.kind,
      tokens,
      sealed,
      receipt.signed_at,
      receipt.receipt_id,
    );
    return { copy_id: copyId, receipt_id: receipt.receipt_id };
  });
}

interface CopyRow {
  copy_id: string;
  source: string;
  out: string;
  kind: 'file' | 'folder';
  sealed_mapping: string;
}

export interface ReverseInput {
  copy_id: string;
  /** A file of the copy (or any file holding its tokens). */
  file: string;
  /** Where the file with its values goes (default: `<name>.restored<ext>` beside `file`). */
  out?: string | undefined;
  /** The person running the command approves a read the gate would ask them about. */
  confirmed?: boolean | undefined;
}

export interface ReverseResult {
  copy_id: string;
  /** The file with its values back, absolute: private to this user (0600). */
  out: string;
  /** The path the gate decided a read of: the file's original, or the copy's source. */
  original: string;
  /** Tokens put back. */
  restored: number;
  outcome: string;
  gate_receipt_id: string | null;
  receipt_id: string;
}

/** `config.clean.json` → `config.restored.json`, `.env.clean` → `.env.restored`, `a.txt` → `a.restored.txt`. */
export function restoredName(name: string): string {
  const found = extname(name);
  // A copy named `<name>.clean` (a file without an extension) has `.clean` for its extension.
  const ext = found === '.clean' ? '' : found;
  const stem = name.slice(0, name.length - found.length).replace(/\.clean$/, '');
  return `${stem}.restored${ext}`;
}

/**
 * Puts a copy's values back into one of its files, as a new file beside the original (beside the
 * file, for one outside the copy): never inside the copy, which is made to be handed to agents and
 * partners. The read gate decides one read of the original path and of the file given (`decide`,
 * both at once: svc reads the file, and it could be any file); only `allowed` and `limited` go
 * ahead, and `ask` when the person running the command confirmed it. Then it must admit writing
 * the new file (`admitWrite`, as `svc open --out` asks it), and the name must be free: an existing
 * file is never written over. Refused or done, the reversal is receipted.
 */
export async function reverseCleanCopy(
  ctx: Context,
  input: ReverseInput,
  decide: (reads: readonly string[]) => Promise<RecordedDecision>,
  admitWrite: (out: string) => Promise<Admission>,
): Promise<ReverseResult> {
  const row = await ctx.store.get<CopyRow>(
    'SELECT copy_id, source, out, kind, sealed_mapping FROM clean_copies WHERE copy_id = ?',
    input.copy_id,
  );
  if (!row) {
    throw new ServiceError(
      'not_found',
      `no clean copy ${input.copy_id} keeps a mapping here: \`svc redact --keep-mapping\` prints the id of one that does`,
    );
  }
  const file = resolve(input.file);
  const text = readWholeText(file);
  if ('skipped' in text) {
    throw new ServiceError(
      'invalid_request',
      `${file} cannot be read as text (${text.skipped}): give a file of the copy`,
    );
  }
  // Unsealed before the gate decides, as the original's name may hold values (a folder named
  // `jane@x.io` is copied as `[EMAIL_1]`): the read decided is the real file's. Nothing of it is
  // written or told before the gate allows the read.
  const forms = JSON.parse(
    unseal(mappingKey(ctx, row.copy_id), row.sealed_mapping, aadOf(row.copy_id)),
  ) as Form[];
  const inCopy = nameInCopy(row, file);
  const original =
    row.kind === 'file' || inCopy === undefined
      ? row.source
      : join(row.source, restoreValues(inCopy, forms).text);
  const ofCopy = row.kind === 'file' ? sameFile(file, row.out) : inCopy !== undefined;
  const beside = ofCopy ? original : file;
  const out = resolve(input.out ?? join(dirname(beside), restoredName(basename(beside))));
  if (sameFile(out, file) || sameFile(out, row.source) || sameFile(out, original)) {
    throw new ServiceError(
      'invalid_request',
      `the values go to a new file, never over the copy or its source: give another --out than ${out}`,
    );
  }
  const reads = sameFile(file, original) ? [original] : [original, file];
  const passed = await decide(reads);
  const { decision } = passed;
  const goesAhead =
    decision.outcome === 'allowed' ||
    decision.outcome === 'limited' ||
    (decision.outcome === 'ask' && input.confirmed === true);
  const facts: Record<string, unknown> = {
    copy_id: row.copy_id,
    file,
    original,
    out,
    outcome: decision.outcome,
    rule_id: decision.rule?.id ?? null,
    gate_receipt_id: passed.receipt_id,
  };
  const deny = (code: ServiceError['code'], message: string, details: Record<string, unknown> = {}) =>
    new Refusal(code, message, details, { kind: 'clean_copy.reverse.deny', org_id: null, body: facts });
  return receiptRefusals(ctx, async () => {
    if (!goesAhead) {
      // A clean-copy-only rule's own advice ("read a clean copy instead") is what the person has:
      // putting values back is the whole file, which only a change of that rule lets out.
      const why =
        decision.outcome === 'ask'
          ? `the rules ask the person first: run it again with --yes if you are that person`
          : decision.outcome === 'clean_copy'
            ? `${decision.explanation}, and putting the values back would give it whole: only the owner of rule ${decision.rule?.id ?? ''} can let it out (\`svc rules explain ${shellQuote(decision.path ?? original)}\` shows it)`
            : `${decision.explanation}; to change it: ${decision.to_change}`;
      throw deny(
        'forbidden',
        `putting the values of ${row.copy_id} back is a read of ${reads.join(' and ')}, and the read gate does not allow it: ${why}`,
        { outcome: decision.outcome, rule_id: facts.rule_id, gate_receipt_id: passed.receipt_id },
      );
    }
    // The values go into a new file: a write of it, which the gate decides as for `svc open --out`.
    const write = await admitWrite(out);
    facts.write_gate = { outcome: write.outcome, rule_id: write.rule_id, audit_id: write.audit_id };
    if (!write.allowed) {
      throw deny(
        'forbidden',
        write.message ?? `the read gate does not allow writing ${out}; no value was put back`,
        { outcome: write.outcome, rule_id: write.rule_id, audit_id: write.audit_id },
      );
    }
    const exists = () =>
      deny(
        'conflict',
        `${out} already exists: the values go to a new file only, never over one; give another --out, or remove it first`,
      );
    if (existsSync(out)) throw exists();
    const restored = restoreValues(text.text, forms, inCopy);
    try {
      // Linked to its name, which must still be free: a file made there meanwhile is not written over.
      writeNewFileAtomic(out, encodeText(restored.text, text.encoding), 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw exists();
      throw error;
    }
    let receipt: Receipt;
    try {
      receipt = await ctx.chains.append('service', {
        kind: 'clean_copy.reverse',
        org_id: null,
        signed_at: nowIso(ctx),
        body: { ...facts, restored: restored.count },
      });
    } catch (error) {
      // No values without their receipt: the file just written goes again.
      rmSync(out, { force: true });
      throw error;
    }
    return {
      copy_id: row.copy_id,
      out,
      original,
      restored: restored.count,
      outcome: decision.outcome,
      gate_receipt_id: passed.receipt_id,
      receipt_id: receipt.receipt_id,
    };
  });
}

/**
 * The original of a file of the copy: the source's file at the same place for a folder's copy,
 * the source for a file's copy; anything else stands for the whole source.
 */
/** `file`'s name in a folder's copy (`a/b.txt`, with `/`), or undefined for a file outside it. */
function nameInCopy(row: CopyRow, file: string): string | undefined {
  if (row.kind === 'file') return undefined;
  const rel = relative(row.out, file);
  return rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)
    ? rel.split(sep).join('/')
    : undefined;
}

function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return real(a) === real(b);
}

const TOKEN = /\[[A-Z0-9_]+_\d+\]/g;
const NAME_TOKEN = /(?<![\w])([&*!])([A-Z0-9_]+_\d+)(?![\w])/g;

/**
 * Each token in `text` replaced by its value. A value over several lines is looked for in each form
 * a copy wrote it (its token, then its lines holding only their indentation; a key with `\r\n` and
 * one indented in YAML have forms of their own), longest first, so that an untouched copy comes back
 * with its lines as they were. A token alone takes its value as a one-line form wrote it (a key
 * escaped in a JSON string) when there is one, else as first written. With `file` (its name in the
 * copy), a value written several ways is given back only as that file wrote it, where the mapping
 * says so.
 */
export function restoreValues(
  text: string,
  forms: Iterable<Form> | ReadonlyMap<string, string>,
  file?: string,
): { text: string; count: number } {
  const pairs = ownForms([...forms], file);
  let count = 0;
  let out = text;
  const bodies = pairs
    .filter(([, value]) => value.includes('\n'))
    .map(([token, value]) => ({ body: tokenBody(token, value), value }))
    .sort((a, b) => b.body.length - a.body.length);
  for (const { body, value } of bodies) {
    const parts = out.split(body);
    count += parts.length - 1;
    out = parts.join(value);
  }
  const bare = new Map<string, string>();
  for (const [token, value] of pairs) if (!value.includes('\n') && !bare.has(token)) bare.set(token, value);
  for (const [token, value] of pairs) if (!bare.has(token)) bare.set(token, value);
  out = out.replace(TOKEN, (token) => {
    const value = bare.get(token);
    if (value === undefined) return token;
    count++;
    return value;
  });
  // A YAML anchor, alias or tag took its token without brackets (`&SECRET_1`).
  out = out.replace(NAME_TOKEN, (whole, mark: string, name: string) => {
    const value = bare.get(`[${name}]`);
    if (value === undefined) return whole;
    count++;
    return `${mark}${value}`;
  });
  return { text: out, count };
}

/**
 * The forms to give `file` back: for each token, the ways `file` wrote it when the mapping names
 * them, else every way (a mapping kept before files were named, or a file the copy did not write).
 */
function ownForms(forms: readonly Form[], file: string | undefined): (readonly [string, string])[] {
  const written =
    file === undefined
      ? new Set<string>()
      : new Set(forms.filter((f) => f[2]?.includes(file)).map((f) => f[0]));
  return forms
    .filter(([token, , files]) => !written.has(token) || files?.includes(file!))
    .map(([t, v]) => [t, v]);
}
