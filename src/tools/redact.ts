// svc_redact: a clean copy of a folder or a file of this computer, for an agent: every value the
// scanner finds replaced by a typed token ([EMAIL_1]), the same value by the same token across the
// copy's files. Each file is read only as the read gate lets this agent read it: allowed, within a
// limit, or clean copy only (a clean copy is what this tool makes); a file the gate denies or asks
// about is not read and is named as protected. Writing the copy is decided by the gate too.
// Values never come back: the answer counts tokens per type.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { printable } from '../backend/printable.ts';
import { walkAsAsker } from '../backend/gate-check.ts';
import { confirmHeld, heldNotRead, localFind, skippedOf, type HeldAnswer } from './scan.ts';
import { requireGate, cwdField } from './gate.ts';
import { svcCommand } from '../config/command.ts';
import { defineTool, personSaysYes } from './registry.ts';

/** Names listed at most in one answer. */
const NAMES_SHOWN = 20;

const Input = z
  .object({
    path: z.string().min(1).max(4096).describe('the folder or file to copy, absolute or relative to cwd'),
    out: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'where the copy goes, relative to cwd: a new or empty folder (default: <folder>.clean beside a folder, <name>.clean<ext> beside a file)',
      ),
    cwd: cwdField(),
    keep_mapping: z
      .boolean()
      .optional()
      .describe(
        "keep the mapping from token to value sealed in the owner's vault, only when the owner asked for it (the person confirms): the owner can then put the values back with `svc redact reverse`, as the read gate allows (default false)",
      ),
    confirmed: z
      .boolean()
      .optional()
      .describe(
        'with keep_mapping, when the client shows no confirmation forms: true only after the person said yes',
      ),
  })
  .strict();

const Output = z.object({
  /** The copy: a folder, or the copied file. */
  out: z.string(),
  kind: z.enum(['file', 'folder']),
  files_redacted: z.number().int(),
  files_copied: z.number().int(),
  values_replaced: z.number().int(),
  /** Distinct values per type: `{EMAIL: 2}` is two emails, [EMAIL_1] and [EMAIL_2] unless a source held one as text. */
  tokens_by_type: z.record(z.string(), z.number().int()),
  redacted_files: z.array(z.string()),
  /** Files not copied, by reason: protected (the gate), binary, too_large, unreadable, changed (since the walk), sealed. */
  skipped: z.record(z.string(), z.number().int()),
  protected_files: z.array(z.string()),
  /** The kept mapping's id, for the owner's `svc redact reverse`; null when it is not kept. */
  copy_id: z.string().nullable(),
  next: z.string(),
});

export const svcRedact = defineTool({
  name: 'svc_redact',
  group: 'find-lock',
  title: 'Make a clean copy with typed tokens',
  description:
    "Writes a clean copy of a folder (or one file) on this computer: every secret and piece of personal data svc_scan_folder would find is replaced by a typed token such as [EMAIL_1] or [AWS_ACCESS_KEY_1], the same value by the same token in every file. JSON, YAML, CSV and .env files stay valid with the same keys, rows and columns, and every line keeps its number. It honours .gitignore and .svcignore, skips binaries, reads only the files the owner's rules let you read (a rule that allows only a clean copy is fine here; files a rule asks about, after the person's yes) and never changes the source. Use it to work on or share a file you may not read as it is; read the copy in `out` afterwards. Values are never returned.",
  credential: 'none',
  inputSchema: Input,
  outputSchema: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const { gate, find } = await localFind(deps, 'svc_redact');
    const cwd = input.cwd ?? process.cwd();
    const asker = { cwd, client: deps.client };
    const source = resolve(cwd, input.path);
    const out = input.out === undefined ? undefined : resolve(cwd, input.out);
    // The copy is written where the agent says: the gate decides that write like any other.
    const { checkCopyPlace, cleanCopyPlace, CLEAN_COPY_MARKER } = await import('../backend/redact.ts');
    const place = cleanCopyPlace(source, out);
    // A place the copy cannot go is refused before the gate or the person is asked.
    checkCopyPlace(place, out !== undefined);
    // An earlier copy of svc's there is replaced whole: the answer says so.
    const replacing = place.kind === 'folder' && existsSync(join(place.out, CLEAN_COPY_MARKER));
    // A copy under a clean-copy-only rule is allowed: the copy is clean.
    await requireGate(deps, { kind: 'paths', action: 'write', paths: [place.out] }, asker, {
      writesCleanCopy: true,
    });
    // The mapping holds the values themselves: it is kept only when the owner says so.
    if (input.keep_mapping) {
      await personSaysYes(
        deps,
        printable(
          `Keep the values of the clean copy of ${source} sealed in your vault, so that you can put them back later (svc redact reverse)?`,
        ),
        {
          needs: "keeping the mapping keeps the values in the owner's vault, so it needs the person's yes",
          nothing:
            'nothing was copied (without keep_mapping, a copy whose values cannot be put back can be made)',
          confirmed: input.confirmed,
          instead: `The person can run \`${svcCommand('redact', source, ...(out ? ['--out', out] : []), '--keep-mapping')}\` in a terminal.`,
        },
      );
    }
    // A clean copy is exactly what a clean-copy-only rule lets out: such files are read too. Files
    // a rule asks about: the person is asked once, about them all, when the rest has been read.
    const held: { answer?: HeldAnswer } = {};
    const instead = svcCommand('redact', source, ...(out ? ['--out', out] : []));
    const copy = await (async () => {
      try {
        return await walkAsAsker(gate, asker, ['allowed', 'limited', 'clean_copy'], (admit, asking) =>
          find.redact(source, {
            out,
            keepMapping: input.keep_mapping ?? false,
            admit,
            confirm: confirmHeld(deps, asking, 'svc_redact', instead, held),
            onProgress: ({ files, bytes }) =>
              void deps.progress(
                files,
                undefined,
                `${files} files, ${(bytes / 1048576).toFixed(1)} MiB copied`,
              ),
          }),
        );
      } catch (error) {
        // Nothing copied because every file was held and not let in: say what the person can run.
        const notRead = heldNotRead(held.answer);
        if (notRead && error instanceof ServiceError) {
          throw new ServiceError(error.code, `${error.message}${notRead}`, error.details);
        }
        throw error;
      }
    })();
    // Only the report is used: the mapping from token to value is sealed in the store when asked,
    // and otherwise dropped; it never reaches the answer.
    const { report } = copy;
    const redacted = report.files.filter((f) => f.status === 'redacted');
    const { counts: skipped, protectedFiles } = skippedOf(report.skipped);
    const types = Object.entries(report.tokens_by_type).map(([type, n]) => `${type} ${n}`);
    const kept = report.copy_id
      ? `; the mapping is kept sealed as ${report.copy_id}: the owner, not you, can put the values back with \`${svcCommand('redact', 'reverse', report.copy_id, 'FILE')}\``
      : '';
    const next =
      report.files.length === 0
        ? `nothing was copied: every file was skipped (see skipped); protected files are not yours to read`
        : `read the copy in ${report.out} instead of the source${replacing ? ' (it replaced the earlier clean copy there, whole)' : ''}; the tokens stand for values you may not see, so keep them as they are${kept}${skipped.changed ? `; ${skipped.changed} file(s) changed while svc read them (saved anew, moved or removed) and are not in the copy: make the copy again to include them` : ''}${skipped.sealed ? `; ${skipped.sealed} sealed file(s) are not in the copy (ciphertext until opened: svc_open gives one back, as the gate allows)` : ''}${heldNotRead(held.answer)}`;
    return {
      text: [
        `Clean copy in ${report.out}: ${report.values_replaced} value(s) replaced in ${redacted.length} of ${report.files.length} file(s)${types.length ? ` (${types.join(', ')})` : ''}.`,
        ...(protectedFiles.length ? [`${protectedFiles.length} protected file(s) not read or copied.`] : []),
        next,
      ].join('\n'),
      structured: {
        out: report.out,
        kind: report.kind,
        files_redacted: redacted.length,
        files_copied: report.files.length - redacted.length,
        values_replaced: report.values_replaced,
        tokens_by_type: report.tokens_by_type,
        redacted_files: redacted.slice(0, NAMES_SHOWN).map((f) => f.file),
        skipped,
        protected_files: protectedFiles.slice(0, NAMES_SHOWN),
        copy_id: report.copy_id,
        next,
      },
    };
  },
});
