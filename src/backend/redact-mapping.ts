// The reversible mapping of a clean copy, kept only when the owner asks (docs/SCAN.md, Clean
// copies): token to value, sealed (AES-256-GCM) under a key the vault derives for that copy alone
// and bound to its id, stored with where the copy came from, and receipted on the service chain.
// Putting values back is a read of the source files they came from: the read gate decides a read
// of each (and of the file given), and the reversal is receipted whether it goes ahead or not.
// Values are never logged, printed or returned: only counts, paths and ids.
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { tokenBody, type Form } from '../scan/redact.ts';
import { printable } from './printable.ts';
import { deriveKey } from '../vault/derive.ts';
import { seal, unseal } from '../vault/seal.ts';
import { newId, nowIso, type Context } from './context.ts';
import type { Receipt } from './chains.ts';
import { ServiceError } from './errors.ts';
import type { RecordedDecision } from './gate-record.ts';
import { Refusal, receiptRefusals } from './governance.ts';
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

/** What is kept sealed for a copy: its tokens' values, and the source files each came from. */
export interface KeptMapping {
  /** Token and value, a token once for each way the copy's files wrote its value (TokenAllocator.forms). */
  forms: readonly Form[];
  /** Per token, the source files (relative to a folder's source) its value came from (TokenAllocator.provenance). */
  from: Readonly<Record<string, readonly string[]>>;
}

/** Keeps a copy's mapping sealed in the store, receipted; answers the copy's id and the receipt's. */
export async function keepMapping(
  ctx: Context,
  report: {
    source: string;
    out: string;
    kind: 'file' | 'folder';
    tokens_by_type: Record<string, number>;
  },
  kept: KeptMapping,
): Promise<{ copy_id: string; receipt_id: string }> {
  const copyId = newId('copy');
  const sealed = seal(mappingKey(ctx, copyId), JSON.stringify(kept), aadOf(copyId));
  const tokens = new Set(kept.forms.map(([token]) => token)).size;
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
  /** Where the file with its values goes (default: `<name>.restored<ext>` beside the original). */
  out?: string | undefined;
}

export interface ReverseResult {
  copy_id: string;
  /** The file with its values back, absolute: private to this user (0600). */
  out: string;
  /** The file's place in the source, as the copy names it; null for a file outside the copy. */
  original: string | null;
  /** The source files the values put back came from: each was decided as a read. */
  sources: number;
  /** Tokens put back. */
  restored: number;
  outcome: string;
  gate_receipt_id: string | null;
  receipt_id: string;
}

/** The gate's decision on the reads a reversal needs, and whether a clean-copy-only rule covers one of them. */
export interface ReverseDecision {
  passed: RecordedDecision;
  /** A rule that lets only a clean copy out covers a read (`ask` outranks it for one action). */
  cleanOnly: boolean;
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
 * file, for one outside the copy; `--out` where the copy's name holds a token): never inside the
 * copy, which is made to be handed to agents and partners. Putting a value back is a read of the
 * source file it came from, whatever file it is put into (a clean-copy-only file's tokens pasted
 * into another still hold its values): the read gate decides, at once, a read of every source file
 * the file's tokens came from and of the file itself (`decide`). `allowed` and `limited` go ahead;
 * `ask` when the person says yes (`confirm`: a terminal's question), unless a clean-copy-only rule
 * covers one of them; anything else is refused. Then it must admit writing the new file
 * (`admitWrite`, as `svc open --out` asks it), and the name must be free: an existing file is never
 * written over. No path holding a value is told or written: the copy's names keep their tokens.
 * Refused or done, the reversal is receipted.
 */
export async function reverseCleanCopy(
  ctx: Context,
  input: ReverseInput,
  /** Decides the reads, for an asker working in `cwd`: the copy's source, where the copy was judged. */
  decide: (reads: readonly string[], cwd: string) => Promise<ReverseDecision>,
  confirm: (question: string) => Promise<boolean>,
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
  const kept = JSON.parse(unseal(mappingKey(ctx, row.copy_id), row.sealed_mapping, aadOf(row.copy_id))) as
    KeptMapping | readonly Form[];
  // A mapping kept before svc recorded where each value came from cannot say which reads to decide.
  if (Array.isArray(kept) || !('from' in kept)) {
    throw new ServiceError(
      'invalid_request',
      `${row.copy_id} was kept before svc recorded which file each value came from, so the read gate cannot decide putting them back: make the clean copy again with --keep-mapping and use the new copy`,
    );
  }
  const { forms, from } = kept as KeptMapping;
  const file = resolve(input.file);
  const text = readWholeText(file);
  if ('skipped' in text) {
    throw new ServiceError(
      'invalid_request',
      `${file} cannot be read as text (${text.skipped}): give a file of the copy`,
    );
  }
  const inCopy = nameInCopy(row, file);
  const ofCopy = row.kind === 'file' ? sameFile(file, row.out) : inCopy !== undefined;
  const original = row.kind === 'file' ? row.source : inCopy === undefined ? null : join(row.source, inCopy);
  // The source files of the tokens the file holds: a file's copy has one, the source itself.
  const present = tokensIn(text.text, forms);
  const sources = new Set<string>();
  for (const token of present) {
    if (row.kind === 'file') sources.add(row.source);
    else for (const f of from[token] ?? []) sources.add(join(row.source, f));
    if (row.kind === 'folder' && !from[token]?.length) {
      throw new ServiceError(
        'invalid_request',
        `${row.copy_id} does not say which file the value of ${token} came from, so the read gate cannot decide putting it back: make the clean copy again with --keep-mapping`,
      );
    }
  }
  if (input.out === undefined && inCopy !== undefined && HOLDS_TOKEN.test(inCopy)) {
    throw new ServiceError(
      'invalid_request',
      `the copy names ${file} with a token in place of a value, and the restored file is never named by one: give --out, where it goes`,
    );
  }
  const beside = ofCopy && original !== null ? original : file;
  const out = resolve(input.out ?? join(dirname(beside), restoredName(basename(beside))));
  if ([file, row.source, ...(original ? [original] : []), ...sources].some((p) => sameFile(out, p))) {
    throw new ServiceError(
      'invalid_request',
      `the values go to a new file, never over the copy, its source or a file they came from: give another --out than ${out}`,
    );
  }
  const reads = [...new Set([file, ...sources])];
  // Decided as from the source's folder: the rules that held for the copy hold for putting back
  // (a folder in no project anchors its project patterns where the work is, not in the copy).
  const { passed, cleanOnly } = await decide(reads, row.kind === 'file' ? dirname(row.source) : row.source);
  const { decision } = passed;
  const facts: Record<string, unknown> = {
    copy_id: row.copy_id,
    file,
    original,
    out,
    sources: sources.size,
    outcome: decision.outcome,
    rule_id: decision.rule?.id ?? null,
    gate_receipt_id: passed.receipt_id,
  };
  const rule = decision.rule
    ? `rule ${decision.rule.id}${decision.rule.reason ? ` (${decision.rule.reason})` : ''}`
    : 'a rule';
  const what = `putting the values of ${row.copy_id} back reads the ${sources.size} file(s) they came from and ${file}`;
  let goesAhead = decision.outcome === 'allowed' || decision.outcome === 'limited';
  let why = '';
  if (decision.outcome === 'ask' && !cleanOnly) {
    goesAhead = await confirm(printable(`${rule} asks you before ${what}. Put them back into ${out}?`));
    if (!goesAhead)
      why = `${rule} asks the person first, and no one said yes on a terminal: run the command yourself in a terminal`;
  } else if (decision.outcome === 'clean_copy' || (decision.outcome === 'ask' && cleanOnly)) {
    // Not the rule's advice to read a clean copy: the person has one, and the values would give
    // the file whole, which only a change of the rule lets out.
    why = `${rule} lets only a clean copy of one of them out, and putting the values back would give it whole: nobody can while the rule holds; whoever keeps it can change it (\`svc rules list\` shows where it is kept)`;
  } else if (!goesAhead) {
    why = `${rule} does not allow reading one of them; to change it: ${decision.to_change}`;
  }
  facts.outcome = cleanOnly && decision.outcome === 'ask' ? 'clean_copy' : decision.outcome;
  const deny = (code: ServiceError['code'], message: string, details: Record<string, unknown> = {}) =>
    new Refusal(code, message, details, { kind: 'clean_copy.reverse.deny', org_id: null, body: facts });
  return receiptRefusals(ctx, async () => {
    if (!goesAhead) {
      throw deny('forbidden', `${what}, and the read gate does not allow it: ${why}`, {
        outcome: facts.outcome,
        rule_id: facts.rule_id,
        gate_receipt_id: passed.receipt_id,
      });
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
      sources: sources.size,
      restored: restored.count,
      outcome: decision.outcome,
      gate_receipt_id: passed.receipt_id,
      receipt_id: receipt.receipt_id,
    };
  });
}

/** The tokens of `forms` that `text` holds, bracketed or as a YAML name (`&EMAIL_1`). */
function tokensIn(text: string, forms: readonly Form[]): Set<string> {
  const known = new Set(forms.map(([token]) => token));
  const found = new Set<string>();
  for (const [token] of text.matchAll(TOKEN)) if (known.has(token)) found.add(token);
  for (const hit of text.matchAll(NAME_TOKEN)) if (known.has(`[${hit[2]}]`)) found.add(`[${hit[2]}]`);
  return found;
}

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
/** A name that holds a token, either way (not global: `test` keeps no place). */
const HOLDS_TOKEN = new RegExp(`${TOKEN.source}|${NAME_TOKEN.source}`);

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
