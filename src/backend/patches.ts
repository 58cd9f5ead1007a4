// Patches an agent proposes and the owner decides (docs/CODE.md). A submitted unified diff is
// checked with the read gate for writing every path it touches: a path no rule lets be written
// (not allowed, or clean copy only) is refused at once, with a receipt. Otherwise the patch is
// receipted and queued. The owner lists, approves or rejects queued patches; an approved patch is
// checked with the gate again and applied by this process to the project recorded at submit, all
// files or none, each written beside its target and renamed over it.
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { decideWith, gateFor } from '../gate/check.ts';
import type { Outcome } from '../gate/engine.ts';
import { nowIso, type Context } from './context.ts';
import type { AgentPrincipal, OrgCaller } from './credentials.ts';
import { ServiceError } from './errors.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { readOrganizationRules } from './rules-read.ts';
import { describe, detector, type Detector } from '../scan/detect.ts';
import { writeFileAtomic } from '../config/paths.ts';
import { DiffError, applyFileDiff, parseUnifiedDiff, pathOf, type FileDiff } from './unified-diff.ts';
import { MAX_PATCH_CHARS } from './vocabulary.ts';

export { MAX_PATCH_CHARS };

/** The most files one patch may touch. */
export const MAX_PATCH_FILES = 200;

/** Outcomes under which a patch may never write a path: not allowed, or only a clean copy may be read. */
export const BLOCKS_WRITE: ReadonlySet<Outcome> = new Set(['denied', 'clean_copy']);

export type PatchStatus = 'queued' | 'applied' | 'rejected';

export interface PathDecision {
  path: string;
  outcome: Outcome;
  rule_id: string | null;
  explanation: string;
  to_change: string;
}

interface PatchRow {
  patch_id: string;
  org_id: string;
  agent_id: string;
  handle: string;
  summary: string;
  diff: string;
  diff_sha256: string;
  project_root: string;
  paths: string;
  status: PatchStatus;
  submitted_at: string;
  submit_receipt_id: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_receipt_id: string | null;
  reason: string | null;
}

const newPatchId = () => `patch_${randomBytes(6).toString('hex')}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The diff's files, or 400 with what is wrong; bad input is refused before anything is recorded. */
export function filesOf(diff: string): FileDiff[] {
  let files: FileDiff[];
  try {
    files = parseUnifiedDiff(diff);
  } catch (error) {
    if (error instanceof DiffError) {
      throw new ServiceError('invalid_request', `the diff cannot be used: ${error.message}`, {
        reason: error.code,
        ...(error.path ? { path: error.path } : {}),
      });
    }
    throw error;
  }
  if (files.length > MAX_PATCH_FILES) {
    throw new ServiceError('invalid_request', `a patch touches at most ${MAX_PATCH_FILES} files`, {
      reason: 'too_many_files',
    });
  }
  return files;
}

/**
 * What the gate of this computer decides for writing each path under `projectRoot`, as the hook
 * would (built-in, organization and this computer's rules). Nothing is counted or recorded here:
 * the receipts of a patch are its own.
 */
export async function writeDecisions(
  ctx: Context,
  projectRoot: string,
  paths: readonly string[],
  agent: string | undefined,
): Promise<PathDecision[]> {
  const setting = {
    dataDir: dirname(ctx.store.file),
    home: process.env.HOME?.trim() || homedir(),
    env: process.env,
    organization: readOrganizationRules(ctx.store.file),
  };
  const now = ctx.clock();
  const compiled = { ...(await gateFor(setting, projectRoot)), setting };
  return paths.map((path) => {
    const decision = decideWith(
      compiled,
      { kind: 'paths', action: 'write', paths: [join(projectRoot, path)] },
      { cwd: projectRoot, agent, client: 'svc' },
      now,
      () => 0,
    );
    return {
      path,
      outcome: decision.outcome,
      rule_id: decision.rule?.id ?? null,
      explanation: decision.explanation,
      to_change: decision.to_change,
    };
  });
}

function blocked(decisions: PathDecision[]) {
  return decisions.filter((d) => BLOCKS_WRITE.has(d.outcome));
}

const blockedMessage = (what: string, blocks: PathDecision[]) =>
  `${what}: the read gate does not let ${blocks.map((b) => b.path).join(', ')} be written (${blocks
    .map((b) => `${b.path}: ${b.explanation}; ${b.to_change}`)
    .join('; ')})`;

export interface SubmitInput {
  summary: string;
  diff: string;
  project_root: string;
}

export async function submitPatch(ctx: Context, agent: AgentPrincipal, input: SubmitInput) {
  if (!isAbsolute(input.project_root)) {
    throw new ServiceError('invalid_request', 'project_root must be an absolute path', {
      field: 'project_root',
    });
  }
  const files = filesOf(input.diff);
  const paths = files.map(pathOf);
  return await receiptRefusals(ctx, async () => {
    const decisions = await writeDecisions(ctx, input.project_root, paths, agent.handle);
    const blocks = blocked(decisions);
    if (blocks.length > 0) {
      throw new Refusal(
        'forbidden',
        blockedMessage('refused', blocks),
        { paths: blocks.map((b) => b.path) },
        {
          kind: 'patch.submit.deny',
          org_id: agent.orgId,
          body: {
            ...actorOf(agent),
            reason: 'protected',
            project_root: input.project_root,
            paths: blocks.map((b) => ({ path: b.path, outcome: b.outcome, rule_id: b.rule_id })),
          },
        },
      );
    }
    return ctx.store.write(async () => {
      const patchId = newPatchId();
      const submittedAt = nowIso(ctx);
      const diffSha256 = sha256(input.diff);
      const receipt = await ctx.chains.append('service', {
        kind: 'patch.submit',
        org_id: agent.orgId,
        signed_at: submittedAt,
        body: {
          org_id: agent.orgId,
          ...actorOf(agent),
          patch_id: patchId,
          summary: input.summary,
          project_root: input.project_root,
          paths,
          diff_sha256: diffSha256,
        },
      });
      await ctx.store.run(
        `INSERT INTO patches (patch_id, org_id, agent_id, handle, summary, diff, diff_sha256, project_root,
           paths, status, submitted_at, submit_receipt_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
        patchId,
        agent.orgId,
        agent.agentId,
        agent.handle,
        input.summary,
        input.diff,
        diffSha256,
        input.project_root,
        JSON.stringify(paths),
        submittedAt,
        receipt.receipt_id,
      );
      return {
        ok: true,
        patch_id: patchId,
        status: 'queued' as const,
        paths: decisions,
        receipt_id: receipt.receipt_id,
      };
    });
  });
}

const view = (row: PatchRow) => ({
  patch_id: row.patch_id,
  status: row.status,
  summary: row.summary,
  handle: row.handle,
  project_root: row.project_root,
  paths: JSON.parse(row.paths) as string[],
  diff: row.diff,
  diff_sha256: row.diff_sha256,
  submitted_at: row.submitted_at,
  receipt_id: row.submit_receipt_id,
  decided_at: row.decided_at,
  decision_receipt_id: row.decision_receipt_id,
  reason: row.reason,
});

export async function listPatches(
  ctx: Context,
  caller: OrgCaller,
  input: { status?: PatchStatus | undefined },
) {
  const rows = await ctx.store.all<PatchRow>(
    `SELECT * FROM patches WHERE org_id = ? AND (? IS NULL OR status = ?) ORDER BY submitted_at, patch_id`,
    caller.orgId,
    input.status ?? null,
    input.status ?? null,
  );
  return { ok: true, count: rows.length, patches: rows.map(view) };
}

/** The caller's queued patch, or a refusal: unknown (another organization's too) or decided already. */
async function queuedPatch(
  ctx: Context,
  caller: OrgCaller,
  patchId: string,
  kind: string,
): Promise<PatchRow> {
  const row = await ctx.store.get<PatchRow>(
    'SELECT * FROM patches WHERE patch_id = ? AND org_id = ?',
    patchId,
    caller.orgId,
  );
  const record = (reason: string, extra: Record<string, unknown> = {}) => ({
    kind,
    org_id: caller.orgId,
    body: { ...actorOf(caller), patch_id: patchId, reason, ...extra },
  });
  if (!row) {
    throw new Refusal(
      'not_found',
      `no patch ${patchId} in this organization: list them with svc_code_patch action "list"`,
      {},
      record('unknown_patch'),
    );
  }
  if (row.status !== 'queued') {
    throw new Refusal(
      'conflict',
      `patch ${patchId} was ${row.status} already`,
      { status: row.status },
      record('decided', { status: row.status }),
    );
  }
  return row;
}

/** Whether `path` is `root` or inside it. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The nearest folder of `path` that exists, resolved: where the file really goes. */
function realFolderOf(path: string): string {
  for (let at = dirname(path); ; at = dirname(at)) {
    try {
      return realpathSync(at);
    } catch {
      if (dirname(at) === at) throw new Error(`no folder of ${path} exists`);
    }
  }
}

/**
 * Applies the files under `root`: every new text is computed first, so a hunk that does not apply
 * writes nothing; then each file is written beside its target and renamed over it (a reader sees
 * the old text or the new, never a part). A path that leads out of the project (through a symlink)
 * is refused before anything is written.
 */
export function applyFiles(root: string, files: readonly FileDiff[]): void {
  const realRoot = realpathSync(root);
  const planned = files.map((file) => {
    const path = pathOf(file);
    const target = join(realRoot, path);
    if (!inside(realRoot, realFolderOf(target))) {
      throw new DiffError('unsafe_path', `${path} leads out of the project`, path);
    }
    let original: string | null = null;
    let mode: number | undefined;
    try {
      const stat = lstatSync(target);
      if (!stat.isFile()) throw new DiffError('does_not_apply', `${path} is not a regular file`, path);
      original = readFileSync(target, 'utf8');
      mode = stat.mode & 0o7777;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return { target, mode, text: applyFileDiff(original, file) };
  });
  for (const { target, mode, text } of planned) {
    if (text === null) {
      unlinkSync(target);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileAtomic(target, text, mode ?? 0o644);
  }
}

export async function approvePatch(ctx: Context, caller: OrgCaller, input: { patch_id: string }) {
  return await receiptRefusals(ctx, () =>
    ctx.store.write(async () => {
      const row = await queuedPatch(ctx, caller, input.patch_id, 'patch.approve.deny');
      const refuse = (
        code: ServiceError['code'],
        message: string,
        reason: string,
        extra: Record<string, unknown>,
      ) =>
        new Refusal(code, message, extra, {
          kind: 'patch.approve.deny',
          org_id: caller.orgId,
          body: { ...actorOf(caller), patch_id: row.patch_id, reason, ...extra },
        });
      const files = parseUnifiedDiff(row.diff);
      // The rules may have changed since the patch was queued: the gate decides again now.
      const blocks = blocked(await writeDecisions(ctx, row.project_root, files.map(pathOf), row.handle));
      if (blocks.length > 0) {
        throw refuse(
          'forbidden',
          blockedMessage(`patch ${row.patch_id} is not applied`, blocks),
          'protected',
          {
            paths: blocks.map((b) => ({ path: b.path, outcome: b.outcome, rule_id: b.rule_id })),
          },
        );
      }
      let isFolder: boolean;
      try {
        isFolder = statSync(row.project_root).isDirectory();
      } catch {
        isFolder = false;
      }
      if (!isFolder) {
        throw refuse(
          'not_found',
          `patch ${row.patch_id} applies to ${row.project_root}, which is not a folder on this computer: approve it where it was submitted`,
          'no_project',
          { project_root: row.project_root },
        );
      }
      try {
        applyFiles(row.project_root, files);
      } catch (error) {
        if (!(error instanceof DiffError)) throw error;
        throw refuse(
          'conflict',
          `patch ${row.patch_id} does not apply, nothing was written: ${error.message}. Reject it and have the agent submit one made against the files as they are now`,
          error.code,
          { path: error.path ?? null },
        );
      }
      const decidedAt = nowIso(ctx);
      const receipt = await ctx.chains.append('service', {
        kind: 'patch.approve',
        org_id: caller.orgId,
        signed_at: decidedAt,
        body: {
          org_id: caller.orgId,
          ...actorOf(caller),
          patch_id: row.patch_id,
          project_root: row.project_root,
          paths: JSON.parse(row.paths) as string[],
          diff_sha256: row.diff_sha256,
        },
      });
      await ctx.store.run(
        `UPDATE patches SET status = 'applied', decided_at = ?, decided_by = ?, decision_receipt_id = ?
         WHERE patch_id = ?`,
        decidedAt,
        caller.keyId,
        receipt.receipt_id,
        row.patch_id,
      );
      return {
        ok: true,
        patch_id: row.patch_id,
        status: 'applied' as const,
        paths: JSON.parse(row.paths) as string[],
        decided_at: decidedAt,
        receipt_id: receipt.receipt_id,
      };
    }),
  );
}

export async function rejectPatch(
  ctx: Context,
  caller: OrgCaller,
  input: { patch_id: string; reason?: string | undefined },
) {
  return await receiptRefusals(ctx, () =>
    ctx.store.write(async () => {
      const row = await queuedPatch(ctx, caller, input.patch_id, 'patch.reject.deny');
      const decidedAt = nowIso(ctx);
      const receipt = await ctx.chains.append('service', {
        kind: 'patch.reject',
        org_id: caller.orgId,
        signed_at: decidedAt,
        body: {
          org_id: caller.orgId,
          ...actorOf(caller),
          patch_id: row.patch_id,
          diff_sha256: row.diff_sha256,
          reason: input.reason ?? null,
        },
      });
      await ctx.store.run(
        `UPDATE patches SET status = 'rejected', decided_at = ?, decided_by = ?, decision_receipt_id = ?, reason = ?
         WHERE patch_id = ?`,
        decidedAt,
        caller.keyId,
        receipt.receipt_id,
        input.reason ?? null,
        row.patch_id,
      );
      return {
        ok: true,
        patch_id: row.patch_id,
        status: 'rejected' as const,
        decided_at: decidedAt,
        receipt_id: receipt.receipt_id,
      };
    }),
  );
}

/** A secret an added line of a diff holds, where it is and what kind; never the value. */
export interface CredentialAdded {
  path: string;
  /** The new file's line number, 1-based. */
  line: number;
  column: number;
  type: string;
  rule: string;
  confidence: number;
  preview: string;
}

let secrets: Detector | undefined;

/**
 * The secrets a diff adds, found by the scanner's secret rules over each file's added lines (taken
 * together, so a private key's block across lines is found), by file and new line number. The
 * rules load on the first call, not with the operations.
 */
export async function credentialsAdded(files: readonly FileDiff[]): Promise<CredentialAdded[]> {
  secrets ??= detector((await import('../scan/secrets/index.ts')).SECRET_RULES);
  const found: CredentialAdded[] = [];
  for (const file of files) {
    const added: { text: string; line: number }[] = [];
    for (const hunk of file.hunks) {
      let line = hunk.newStart;
      for (const { op, text } of hunk.lines) {
        if (op === '-') continue;
        if (op === '+') added.push({ text, line });
        line++;
      }
    }
    if (added.length === 0) continue;
    const path = pathOf(file);
    const text = added.map((a) => a.text).join('\n');
    // No fingerprint here: advice is given and forgotten, nothing to recognise a value by later.
    for (const { line, column, type, rule, confidence, preview } of describe(
      text,
      secrets.matches(text, path),
      () => '',
    )) {
      found.push({ path, line: added[line - 1]!.line, column, type, rule, confidence, preview });
    }
  }
  return found;
}
