// svc_protect, svc_open, svc_seal_revoke and svc_wrap: an agent seals files in place, opens a
// sealed file only as the read gate lets it (to a file, back in place, or as text when it asks for
// the text), revokes a seal only with the person's confirmation, and archives files and restores
// them as the gate lets it. The core decides and receipts (src/backend/seal-files.ts, archive.ts);
// these shape the answers for a model.
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { svcCommand } from '../config/command.ts';
import type { Admission, SealFiles } from '../backend/seal-files.ts';
import { SEAL_ID } from '../backend/vocabulary.ts';
import type { GateAsk } from '../gate/check.ts';
import type { Action } from '../gate/rules.ts';
import { decideOrRefuse } from '../backend/gate-check.ts';
import { cwdField, requireGate } from './gate.ts';
import { defineTool, noAnswer, type ToolDeps } from './registry.ts';
import { printable } from '../backend/printable.ts';

/** The most of a sealed file svc_open answers as text: a model's context is not a file transfer. */
export const OPEN_TEXT_MAX_BYTES = 64 * 1024;
/** Entries listed at most per kind in svc_protect's answer; the counts are always whole. */
const LISTED = 100;
/** How receipts name who acted through these tools. */
const BY = 'agent:mcp';

function sealsOf(deps: ToolDeps): SealFiles {
  if (!deps.gate || !deps.seals) {
    throw new ServiceError(
      'forbidden',
      'this server has no read gate and no store of its own, so it touches no file: use the tool through `svc mcp` on the computer that holds the files',
    );
  }
  return deps.seals;
}

/**
 * The gate's decisions on `asks`, as one admission for the core: refused at the first that does not
 * go ahead (an `ask` rule asks the person through the client's form first). Rules that cannot be
 * read refuse: fail closed.
 */
export async function admitAll(
  deps: ToolDeps,
  asks: GateAsk[],
  cwd: string,
  /** The command the person can run instead (requireGate's `instead`). */
  instead?: string,
): Promise<Admission> {
  let last: Admission = { allowed: true, outcome: 'allowed', rule_id: null, audit_id: null };
  for (const ask of asks) {
    try {
      const passed = await requireGate(deps, ask, { cwd, client: deps.client }, instead ? { instead } : {});
      last = {
        allowed: true,
        outcome: passed.decision.outcome,
        rule_id: passed.decision.rule?.id ?? null,
        audit_id: passed.receipt_id,
      };
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'forbidden') throw error;
      const details = error.details as {
        outcome?: string;
        rule_id?: string | null;
        receipt_id?: string | null;
      };
      return {
        allowed: false,
        outcome: details.outcome ?? 'undecided',
        rule_id: details.rule_id ?? null,
        audit_id: details.receipt_id ?? null,
        message: error.message,
      };
    }
  }
  return last;
}

/** The gate's decision on one path, for the core's walk: only what may go ahead at once is done. */
export async function admitOne(
  deps: ToolDeps,
  action: Action,
  path: string,
  cwd: string,
): Promise<Admission> {
  const { decision, receipt_id } = await decideOrRefuse(
    deps.gate!,
    { kind: 'paths', action, paths: [path] },
    { cwd, client: deps.client },
  );
  const allowed = decision.outcome === 'allowed' || decision.outcome === 'limited';
  return { allowed, outcome: decision.outcome, rule_id: decision.rule?.id ?? null, audit_id: receipt_id };
}

// ---------------------------------------------------------------- svc_protect

const ProtectInput = z
  .object({
    paths: z
      .array(z.string().min(1).max(4096))
      .min(1)
      .max(64)
      .describe(
        'files or folders to seal in place, absolute or relative to cwd; folders are sealed recursively',
      ),
    cwd: cwdField(),
  })
  .strict();

const ProtectOutput = z.object({
  sealed: z.array(
    z.object({ path: z.string(), seal_id: z.string(), bytes: z.number().int(), receipt_id: z.string() }),
  ),
  skipped: z.array(
    z.object({
      path: z.string(),
      reason: z
        .string()
        .describe(
          "already_sealed, symlink, not_a_file, hard_linked (other names would keep the plaintext), svc_data, system_folder (the operating system's files: never sealed), version_control, protected (the gate did not let you change it)",
        ),
    }),
  ),
  failed: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .describe('what could not be sealed and why, a path that is not there included; the rest was sealed'),
  files_sealed: z.number().int(),
  files_skipped: z.number().int(),
  files_failed: z.number().int(),
  bytes_sealed: z.number().int(),
  next: z.string(),
});

export const svcProtect = defineTool({
  name: 'svc_protect',
  group: 'find-lock',
  title: 'Seal files in place',
  description:
    "Seals files on this computer in place, folders recursively: each file is encrypted (AES-256-GCM, a key of its own kept wrapped in svc's store) and keeps its name, so the owner's file rules still apply to it. Use it on what svc_scan_folder found, before sharing a folder. Already sealed files, links, hard-linked files, svc's own data, the operating system's folders (/etc, /usr, /var and the like) and .git folders are skipped, and so is anything the read gate does not let you write; a path that is not there is listed in `failed` and the others are still sealed. Sealing is reversible: svc_open releases a file as the gate allows; svc_seal_revoke destroys a seal for good.",
  credential: 'none',
  inputSchema: ProtectInput,
  outputSchema: ProtectOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const seals = sealsOf(deps);
    const cwd = input.cwd ?? process.cwd();
    const result = await seals.protect(
      input.paths.map((p) => resolve(cwd, p)),
      {
        by: BY,
        admit: (path) => admitOne(deps, 'write', path, cwd),
        onProgress: ({ step, files, bytes }) => {
          if (step === 'done' || step === 'skipped' || step === 'failed') {
            void deps.progress(
              files,
              undefined,
              `${files} files, ${(bytes / 1048576).toFixed(1)} MiB sealed`,
            );
          }
        },
      },
    );
    const bytes = result.sealed.reduce((sum, s) => sum + s.bytes, 0);
    const next =
      result.failed.length > 0
        ? 'some files could not be sealed: each says why; fix that and call svc_protect on them again'
        : result.sealed.length > 0
          ? 'sealed files open only through svc_open, as the gate allows; tell the person what was sealed'
          : 'nothing was sealed: see why each file was skipped';
    const lines = [
      ...result.sealed.slice(0, LISTED).map((s) => `sealed ${s.path} (${s.seal_id})`),
      ...result.skipped.slice(0, LISTED).map((s) => `skipped ${s.path}: ${s.reason}`),
      ...result.failed.slice(0, LISTED).map((f) => `failed ${f.path}: ${f.message}`),
      `${result.sealed.length} sealed, ${result.skipped.length} skipped, ${result.failed.length} failed. ${next}`,
    ];
    return {
      text: lines.join('\n'),
      structured: {
        sealed: result.sealed.slice(0, LISTED),
        skipped: result.skipped.slice(0, LISTED),
        failed: result.failed.slice(0, LISTED),
        files_sealed: result.sealed.length,
        files_skipped: result.skipped.length,
        files_failed: result.failed.length,
        bytes_sealed: bytes,
        next,
      },
    };
  },
});

// ---------------------------------------------------------------- svc_open

const OpenInput = z
  .object({
    path: z.string().min(1).max(4096).describe('the sealed file, absolute or relative to cwd'),
    out: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('write the plaintext to this new file (it must not exist); the gate must let you write it'),
    in_place: z.boolean().optional().describe('replace the sealed file by its plaintext'),
    as_text: z
      .boolean()
      .optional()
      .describe(
        `answer the plaintext as text (UTF-8, at most ${OPEN_TEXT_MAX_BYTES} bytes), writing nothing`,
      ),
    cwd: cwdField(),
  })
  .strict();

const OpenOutput = z.object({
  seal_id: z.string(),
  path: z.string(),
  released_to: z.enum(['file', 'in_place', 'text']),
  out_path: z.string().nullable(),
  bytes: z.number().int(),
  receipt_id: z.string(),
  text: z.string().nullable().describe('the plaintext, only when as_text was asked'),
  next: z.string(),
});

export const svcOpen = defineTool({
  name: 'svc_open',
  group: 'find-lock',
  title: 'Open a sealed file',
  description:
    'Releases a file sealed with svc_protect, only if the read gate lets you read it (a rule may ask the person first). Say where the plaintext goes, exactly one of: `out` (a new file, which the gate must let you write), `in_place` (the sealed file becomes plaintext again), or `as_text` (the text comes back in this answer, for small UTF-8 files; nothing is written). Each open, allowed or refused, leaves a signed receipt. A file that was altered, cut, or whose seal was revoked is refused with the reason; nothing of it is released.',
  credential: 'none',
  inputSchema: OpenInput,
  outputSchema: OpenOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const seals = sealsOf(deps);
    const chosen = [input.out !== undefined, input.in_place === true, input.as_text === true].filter(Boolean);
    if (chosen.length !== 1) {
      throw new ServiceError(
        'invalid_request',
        'say where the plaintext goes, exactly one of: out (a new file), in_place: true, or as_text: true',
      );
    }
    const cwd = input.cwd ?? process.cwd();
    const path = resolve(cwd, input.path);
    const outPath = input.out === undefined ? undefined : resolve(cwd, input.out);
    // Reading the sealed file is a read; putting its plaintext in a file is a write of that file.
    const asks: GateAsk[] = [{ kind: 'paths', action: 'read', paths: [path] }];
    if (outPath !== undefined || input.in_place) {
      asks.push({ kind: 'paths', action: 'write', paths: [outPath ?? path] });
    }
    const opened = await seals.open(path, {
      out:
        outPath !== undefined
          ? { kind: 'file', path: outPath }
          : input.in_place
            ? { kind: 'in_place' }
            : { kind: 'text', maxBytes: OPEN_TEXT_MAX_BYTES },
      by: BY,
      // A file sealed under another path (a copy, a link) opens only if that path may be read too.
      admit: (sealedPath, role) =>
        role === 'sealed_as'
          ? admitAll(deps, [{ kind: 'paths', action: 'read', paths: [sealedPath] }], cwd)
          : admitAll(
              deps,
              asks,
              cwd,
              svcCommand(
                'open',
                path,
                ...(outPath !== undefined ? ['--out', outPath] : input.in_place ? [] : ['--out', '-']),
              ),
            ),
    });
    const releasedTo = opened.released_to as 'file' | 'in_place' | 'text';
    const next =
      releasedTo === 'text'
        ? 'the text is for this task only: do not copy it into files, logs or messages'
        : releasedTo === 'in_place'
          ? 'the file is plaintext again: seal it again with svc_protect when you are done'
          : 'the copy is plaintext: remove it when you are done, or seal it with svc_protect';
    const where =
      releasedTo === 'text' ? 'as text' : releasedTo === 'in_place' ? 'in place' : `to ${opened.out_path}`;
    const said = `opened ${opened.path} ${where}: ${opened.bytes} bytes, receipt ${opened.receipt_id}. ${next}`;
    return {
      text: releasedTo === 'text' ? `${said}\n\n${opened.text ?? ''}` : said,
      structured: {
        seal_id: opened.seal_id,
        path: opened.path,
        released_to: releasedTo,
        out_path: opened.out_path,
        bytes: opened.bytes,
        receipt_id: opened.receipt_id,
        text: opened.text ?? null,
        next,
      },
    };
  },
});

// ---------------------------------------------------------------- svc_seal_revoke

const RevokeInput = z
  .object({
    target: z
      .string()
      .min(1)
      .max(4096)
      .describe('a sealed file (absolute or relative to cwd) or a seal id (seal_ and 32 hex digits)'),
    reason: z.string().trim().min(1).max(512).optional().describe('why, kept with the seal and its receipt'),
    cwd: cwdField(),
  })
  .strict();

const RevokeOutput = z.object({
  seal_id: z.string(),
  path: z.string(),
  revoked_at: z.string(),
  revoked_by: z.string(),
  revoke_reason: z.string().nullable(),
  changed: z.boolean().describe('false when the seal was already revoked'),
  receipt_id: z.string().nullable(),
  next: z.string(),
});

export const svcSealRevoke = defineTool({
  name: 'svc_seal_revoke',
  group: 'govern',
  title: 'Revoke a seal for good',
  description:
    "Revokes the seal of a file sealed with svc_protect, by the file or its seal id: the seal's key is destroyed, so nobody can open that file, or any copy of it, ever again (crypto-shredding). The person must confirm through the client's form, and the read gate must let you write the file; a client without forms cannot revoke (the person runs `svc seal revoke`). The revocation is receipted; opening the file afterwards says when, by whom and why it was revoked.",
  credential: 'none',
  inputSchema: RevokeInput,
  outputSchema: RevokeOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const seals = sealsOf(deps);
    const cwd = input.cwd ?? process.cwd();
    const target = SEAL_ID.test(input.target) ? input.target : resolve(cwd, input.target);
    const revoked = await seals.revoke(target, {
      by: `${BY}, confirmed by the person`,
      reason: input.reason,
      admit: async (path) => {
        const admission = await admitAll(deps, [{ kind: 'paths', action: 'write', paths: [path] }], cwd);
        if (!admission.allowed) return admission;
        // Destroying a key cannot be undone: the person says so, never the agent alone.
        const answer = await deps.confirm(
          printable(
            `Revoke the seal of ${path}${input.reason ? ` (${input.reason})` : ''}? Its key is destroyed: nobody can open this file, or any copy of it, again.`,
          ),
        );
        if (answer === 'accepted') return admission;
        return {
          ...admission,
          allowed: false,
          outcome: answer === 'declined' ? 'declined' : 'unconfirmed',
          message:
            answer === 'declined'
              ? 'the person declined: the seal stands'
              : `revoking a seal needs the person's confirmation, and ${noAnswer(answer)}: the seal stands. The person can run \`${svcCommand('seal', 'revoke', path, ...(input.reason ? ['--reason', input.reason] : []))}\` in a terminal`,
        };
      },
    });
    const next = revoked.changed
      ? 'the file can no longer be opened by anyone; remove the sealed file if it is no longer needed'
      : 'it was revoked before: nothing changed';
    return {
      text: revoked.changed
        ? `revoked ${revoked.seal_id} (${revoked.path}) at ${revoked.revoked_at}, receipt ${revoked.receipt_id}. ${next}`
        : `${revoked.seal_id} was already revoked at ${revoked.revoked_at} by ${revoked.revoked_by}. ${next}`,
      structured: {
        seal_id: revoked.seal_id,
        path: revoked.path,
        revoked_at: revoked.revoked_at,
        revoked_by: revoked.revoked_by,
        revoke_reason: revoked.revoke_reason,
        changed: revoked.changed,
        receipt_id: revoked.receipt_id,
        next,
      },
    };
  },
});

// ---------------------------------------------------------------- svc_wrap

const WrapInput = z
  .object({
    action: z
      .enum(['wrap', 'list', 'restore'])
      .describe('wrap: archive files; list: what the archive holds; restore: write an archived file back'),
    paths: z
      .array(z.string().min(1).max(4096))
      .min(1)
      .max(64)
      .optional()
      .describe('for wrap: files or folders (recursively), absolute or relative to cwd'),
    id: z.string().min(1).max(64).optional().describe('for restore: the archive id (arc_ and 32 hex digits)'),
    out: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'for restore: a new file to write (it must not exist); without it the file goes back where it was wrapped from, if nothing is there',
      ),
    cwd: cwdField(),
  })
  .strict();

const ArchiveEntrySchema = z.object({
  object_id: z.string(),
  path: z.string(),
  bytes: z.number().int(),
  wrapped_at: z.string(),
  wrapped_by: z.string(),
  original_removed_at: z.string().nullable(),
});

const WrapOutput = z.object({
  action: z.enum(['wrap', 'list', 'restore']),
  wrapped: z
    .array(
      z.object({
        path: z.string(),
        object_id: z.string(),
        bytes: z.number().int(),
        deduplicated: z.boolean().describe('an equal file was archived before: nothing new was stored'),
        receipt_id: z.string(),
      }),
    )
    .optional(),
  skipped: z
    .array(
      z.object({
        path: z.string(),
        reason: z
          .string()
          .describe(
            'symlink, not_a_file, svc_data, version_control, protected (the gate did not let you read it)',
          ),
      }),
    )
    .optional(),
  failed: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  entries: z.array(ArchiveEntrySchema).optional().describe('for list: newest first'),
  restored: z
    .object({
      object_id: z.string(),
      out_path: z.string().nullable(),
      bytes: z.number().int(),
      receipt_id: z.string(),
    })
    .optional(),
  next: z.string(),
});

export const svcWrap = defineTool({
  name: 'svc_wrap',
  group: 'find-lock',
  title: 'Archive files, encrypted',
  description:
    "Encrypts files into this computer's archive (in svc's data dir, each file under a key of its own derived from svc's vault; equal files are stored once) and writes them back. action `wrap` archives `paths` (folders recursively) and keeps the originals; only what the read gate lets you read is archived, and a path that is not there is listed in `failed` while the others are archived. action `list` shows what the archive holds (ids, sizes, where each came from, never content). action `restore` writes one archived file (`id`) to `out` or, without it, back where it was wrapped from; the gate must let you read where it came from and write where it goes, and an existing file is never overwritten. Every wrap and restore, allowed or refused, leaves a signed receipt.",
  credential: 'none',
  inputSchema: WrapInput,
  outputSchema: WrapOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const archive = deps.archive;
    if (!deps.gate || !archive) {
      throw new ServiceError(
        'forbidden',
        'this server has no read gate and no archive of its own, so it touches no file: use the tool through `svc mcp` on the computer that holds the files',
      );
    }
    const cwd = input.cwd ?? process.cwd();
    if (input.action === 'list') {
      const entries = (await archive.list()).slice(0, LISTED);
      const next = entries.length
        ? 'restore one with action restore and its id'
        : 'the archive is empty: wrap files with action wrap';
      return {
        text: [
          ...entries.map((e) => `${e.object_id} ${e.bytes} bytes, wrapped ${e.wrapped_at} from ${e.path}`),
          next,
        ].join('\n'),
        structured: {
          action: 'list' as const,
          entries: entries.map(({ object_id, path, bytes, wrapped_at, wrapped_by, original_removed_at }) => ({
            object_id,
            path,
            bytes,
            wrapped_at,
            wrapped_by,
            original_removed_at,
          })),
          next,
        },
      };
    }
    if (input.action === 'restore') {
      if (input.id === undefined || input.paths !== undefined) {
        throw new ServiceError(
          'invalid_request',
          input.id === undefined
            ? 'restore needs `id`, the archive id (arc_ and 32 hex digits) that action `list` shows, and optionally `out`, a new file to write'
            : 'restore takes `id` and optionally `out`, not `paths`: leave `paths` out',
        );
      }
      const outPath = input.out === undefined ? undefined : resolve(cwd, input.out);
      const restored = await archive.restore(input.id, {
        out:
          outPath === undefined
            ? { kind: 'original', force: false }
            : { kind: 'file', path: outPath, force: false },
        by: BY,
        admit: (from, to) =>
          admitAll(
            deps,
            [
              ...from.map((path): GateAsk => ({ kind: 'paths', action: 'read', paths: [path] })),
              ...(to === null ? [] : [{ kind: 'paths', action: 'write', paths: [to] } as GateAsk]),
            ],
            cwd,
          ),
      });
      const next = 'the restored file is plaintext: remove it when you are done, or seal it with svc_protect';
      return {
        text: `restored ${restored.object_id} to ${restored.out_path}: ${restored.bytes} bytes, receipt ${restored.receipt_id}. ${next}`,
        structured: {
          action: 'restore' as const,
          restored: {
            object_id: restored.object_id,
            out_path: restored.out_path,
            bytes: restored.bytes,
            receipt_id: restored.receipt_id,
          },
          next,
        },
      };
    }
    if (input.paths === undefined || input.id !== undefined || input.out !== undefined) {
      throw new ServiceError('invalid_request', 'wrap takes `paths`, not `id` or `out`');
    }
    const result = await archive.wrap(
      input.paths.map((p) => resolve(cwd, p)),
      {
        by: BY,
        admit: (path) => admitOne(deps, 'read', path, cwd),
        onProgress: ({ step, files, bytes }) => {
          if (step === 'done' || step === 'skipped' || step === 'failed') {
            void deps.progress(
              files,
              undefined,
              `${files} files, ${(bytes / 1048576).toFixed(1)} MiB wrapped`,
            );
          }
        },
      },
    );
    const next =
      result.failed.length > 0
        ? 'some files could not be wrapped: each says why'
        : result.wrapped.length > 0
          ? 'the originals are still in place; the archived copies restore with action restore'
          : 'nothing was wrapped: see why each file was skipped';
    return {
      text: [
        ...result.wrapped.slice(0, LISTED).map((w) => `wrapped ${w.path} (${w.object_id})`),
        ...result.skipped.slice(0, LISTED).map((s) => `skipped ${s.path}: ${s.reason}`),
        ...result.failed.slice(0, LISTED).map((f) => `failed ${f.path}: ${f.message}`),
        `${result.wrapped.length} wrapped, ${result.skipped.length} skipped, ${result.failed.length} failed. ${next}`,
      ].join('\n'),
      structured: {
        action: 'wrap' as const,
        wrapped: result.wrapped
          .slice(0, LISTED)
          .map(({ path, object_id, bytes, deduplicated, receipt_id }) => ({
            path,
            object_id,
            bytes,
            deduplicated,
            receipt_id,
          })),
        skipped: result.skipped.slice(0, LISTED),
        failed: result.failed.slice(0, LISTED).map(({ path, message }) => ({ path, message })),
        next,
      },
    };
  },
});
