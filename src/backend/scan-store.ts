// What the store keeps of scans (docs/SCAN.md): each scan's findings, as the scanner reported them
// (masked previews and keyed fingerprints, never values), and what people said about a finding:
// false positive, accepted risk, or confirmed. A verdict is kept for one project, or promoted to
// the organization, where every computer whose store keeps it honours it. Each verdict is receipted.
import { randomBytes } from 'node:crypto';
import { nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { ServiceError } from './errors.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import type { FolderFinding, FolderScan } from './scan-folder.ts';
import { VERDICTS } from './vocabulary.ts';
import { realPath } from '../gate/resolve.ts';

export { VERDICTS };

/** The scans kept per project: the plan reads the latest, feedback the recent ones. */
export const SCANS_KEPT_PER_PROJECT = 20;

export type Verdict = (typeof VERDICTS)[number];
/** Verdicts that take a finding out of later scans' reports. */
export type Silencing = Exclude<Verdict, 'confirmed'>;

export interface FeedbackEntry {
  feedback_id: string;
  scope: 'project' | 'organization';
  project: string | null;
  org_id: string | null;
  fingerprint: string;
  verdict: Verdict;
  reason: string | null;
  /** The finding's type when the verdict was given (`AWS_ACCESS_KEY`), so a list says what it is about. */
  type: string | null;
  decided_by: string;
  decided_at: string;
  receipt_id: string;
  /** For an organization's verdict promoted from a project's: that verdict's id. */
  promoted_from: string | null;
}

export interface StoredScan {
  scan_id: string;
  project: string;
  root: string;
  created_at: string;
  scanned_by: string;
  files_scanned: number;
  bytes_scanned: number;
  /** The findings reported: those no verdict silenced. */
  findings: FolderFinding[];
  /** Findings left out, by the verdict that silenced them. */
  silenced: Record<Silencing, number>;
  skipped: FolderScan['skipped'];
}

const newScanId = () => `scan_${randomBytes(8).toString('hex')}`;
const newFeedbackId = () => `fb_${randomBytes(8).toString('hex')}`;

const FEEDBACK_COLUMNS =
  'feedback_id, scope, project, org_id, fingerprint, verdict, reason, type, decided_by, decided_at, receipt_id, promoted_from';

/**
 * The verdict that holds for each fingerprint in a project: its own and every organization's its
 * store keeps. "Confirmed" at any level wins, so nobody can silence what someone confirmed; of two
 * silencing verdicts the project's, being nearer, is the one named.
 */
export async function verdictsFor(ctx: Context, project: string): Promise<Map<string, Verdict>> {
  const names = await namesOf(ctx, project);
  const rows = await ctx.store.all<{ fingerprint: string; verdict: Verdict; scope: string }>(
    `SELECT fingerprint, verdict, scope FROM scan_feedback
     WHERE (scope = 'project' AND project IN (${names.map(() => '?').join(', ')})) OR scope = 'organization'
     ORDER BY scope = 'project'`,
    ...names,
  );
  const verdicts = new Map<string, Verdict>();
  for (const row of rows) {
    if (verdicts.get(row.fingerprint) === 'confirmed') continue;
    verdicts.set(row.fingerprint, row.verdict);
  }
  return verdicts;
}

/** Findings split into those still reported and the counts silenced, by verdict. */
export function applyVerdicts(
  findings: FolderFinding[],
  verdicts: Map<string, Verdict>,
): { findings: FolderFinding[]; silenced: Record<Silencing, number> } {
  const silenced = { false_positive: 0, accepted_risk: 0 };
  const kept = findings.filter((f) => {
    const verdict = verdicts.get(f.fingerprint);
    if (verdict === undefined || verdict === 'confirmed') return true;
    silenced[verdict] += 1;
    return false;
  });
  return { findings: kept, silenced };
}

/**
 * Keeps one scan and its reported findings, and drops the project's scans beyond the latest
 * `SCANS_KEPT_PER_PROJECT`, in one write.
 */
export async function recordScan(
  ctx: Context,
  scan: Omit<StoredScan, 'scan_id' | 'created_at'>,
): Promise<StoredScan> {
  const stored: StoredScan = { ...scan, scan_id: newScanId(), created_at: nowIso(ctx) };
  await ctx.store.write(async () => {
    await ctx.store.run(
      `INSERT INTO scans (scan_id, project, root, created_at, scanned_by, files_scanned, bytes_scanned, findings, silenced, skipped)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      stored.scan_id,
      stored.project,
      stored.root,
      stored.created_at,
      stored.scanned_by,
      stored.files_scanned,
      stored.bytes_scanned,
      stored.findings.length,
      stored.silenced.false_positive + stored.silenced.accepted_risk,
      JSON.stringify({ silenced: stored.silenced, skipped: stored.skipped }),
    );
    const insert = ctx.store.db.prepare(
      `INSERT INTO scan_findings (scan_id, seq, file, line, col, category, type, rule, confidence, fingerprint, preview)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    stored.findings.forEach((f, seq) =>
      insert.run(
        stored.scan_id,
        seq,
        f.file,
        f.line,
        f.column,
        f.category,
        f.type,
        f.rule,
        f.confidence,
        f.fingerprint,
        f.preview,
      ),
    );
    await ctx.store.run(
      `DELETE FROM scans WHERE project = ? AND scan_id NOT IN
         (SELECT scan_id FROM scans WHERE project = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
      stored.project,
      stored.project,
      SCANS_KEPT_PER_PROJECT,
    );
  });
  return stored;
}

interface ScanRow {
  scan_id: string;
  project: string;
  root: string;
  created_at: string;
  scanned_by: string;
  files_scanned: number;
  bytes_scanned: number;
  skipped: string;
}

/** A kept scan by id, or the latest of a project; undefined when there is none. */
export async function storedScan(
  ctx: Context,
  which: { scan_id: string } | { project: string },
): Promise<StoredScan | undefined> {
  const row =
    'scan_id' in which
      ? await ctx.store.get<ScanRow>('SELECT * FROM scans WHERE scan_id = ?', which.scan_id)
      : await ctx.store.get<ScanRow>(
          'SELECT * FROM scans WHERE project = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
          which.project,
        );
  if (!row) return undefined;
  const findings = await ctx.store.all<FolderFinding & { col: number }>(
    'SELECT file, line, col, category, type, rule, confidence, fingerprint, preview FROM scan_findings WHERE scan_id = ? ORDER BY seq',
    row.scan_id,
  );
  const { silenced, skipped } = JSON.parse(row.skipped) as Pick<StoredScan, 'silenced' | 'skipped'>;
  return {
    scan_id: row.scan_id,
    project: row.project,
    root: row.root,
    created_at: row.created_at,
    scanned_by: row.scanned_by,
    files_scanned: row.files_scanned,
    bytes_scanned: row.bytes_scanned,
    findings: findings.map(({ col, ...f }) => ({ ...f, column: col })),
    silenced,
    skipped,
  };
}

/** Every verdict that holds in a project: its own, then every organization's, newest first. */
export async function listFeedback(ctx: Context, project: string): Promise<FeedbackEntry[]> {
  const names = await namesOf(ctx, project);
  return await ctx.store.all<FeedbackEntry>(
    `SELECT ${FEEDBACK_COLUMNS} FROM scan_feedback
     WHERE (scope = 'project' AND project IN (${names.map(() => '?').join(', ')})) OR scope = 'organization'
     ORDER BY scope = 'organization', decided_at DESC`,
    ...names,
  );
}

/**
 * The names the store keeps `project`'s verdicts under: its real path, and any other path a verdict
 * was kept under that leads to it. Projects were once named as reached (through a link, say), and
 * are named by their real path now: a verdict kept under a link's path still holds.
 */
async function namesOf(ctx: Context, project: string): Promise<string[]> {
  const kept = await ctx.store.all<{ project: string }>(
    "SELECT DISTINCT project FROM scan_feedback WHERE scope = 'project' AND project != ?",
    project,
  );
  return [project, ...kept.map((row) => row.project).filter((name) => realPath(name) === project)];
}

export interface MarkInput {
  project: string;
  fingerprint: string;
  verdict: Verdict;
  reason?: string | undefined;
  /** Who decided, as the receipt and the list name them. */
  decided_by: string;
}

/**
 * The finding a kept scan of `project` reported with `fingerprint`, or one a verdict there names:
 * its type (null when an old verdict kept none); undefined when the project never saw it.
 */
export async function knownFinding(
  ctx: Context,
  project: string,
  fingerprint: string,
): Promise<{ type: string | null } | undefined> {
  const seen = await ctx.store.get<{ type: string }>(
    `SELECT f.type FROM scan_findings f JOIN scans s ON s.scan_id = f.scan_id
     WHERE s.project = ? AND f.fingerprint = ? LIMIT 1`,
    project,
    fingerprint,
  );
  return (
    seen ??
    (await ctx.store.get<{ type: string | null }>(
      "SELECT type FROM scan_feedback WHERE scope = 'project' AND project = ? AND fingerprint = ?",
      project,
      fingerprint,
    ))
  );
}

/**
 * Keeps a project's verdict on a finding, replacing an earlier one, with its receipt. The
 * fingerprint must be one a kept scan of the project reported: a verdict on a typo would silence
 * nothing and say it did.
 */
export async function markFinding(ctx: Context, input: MarkInput): Promise<FeedbackEntry> {
  const known = await knownFinding(ctx, input.project, input.fingerprint);
  if (!known) {
    throw new ServiceError(
      'not_found',
      `no kept scan of ${input.project} reported a finding with fingerprint ${input.fingerprint}: scan the project first, and copy the fingerprint from its findings`,
      { fingerprint: input.fingerprint },
    );
  }
  const decidedAt = nowIso(ctx);
  const entry = {
    feedback_id: newFeedbackId(),
    scope: 'project' as const,
    project: input.project,
    org_id: null,
    fingerprint: input.fingerprint,
    verdict: input.verdict,
    reason: input.reason ?? null,
    type: known.type,
    decided_by: input.decided_by,
    decided_at: decidedAt,
    promoted_from: null,
  };
  return await ctx.store.write(() =>
    keepFeedback(ctx, entry, {
      kind: 'scan.feedback',
      org_id: null,
      body: {
        feedback_id: entry.feedback_id,
        scope: 'project',
        project: entry.project,
        fingerprint: entry.fingerprint,
        type: entry.type,
        verdict: entry.verdict,
        reason: entry.reason,
        decided_by: entry.decided_by,
      },
    }),
  );
}

/**
 * Receipts a verdict and keeps it in place of the earlier one of the same fingerprint at the same
 * scope (the project's, or the organization's). Runs inside the caller's write.
 */
async function keepFeedback(
  ctx: Context,
  entry: Omit<FeedbackEntry, 'receipt_id'>,
  receipt: { kind: string; org_id: string | null; body: Record<string, unknown> },
): Promise<FeedbackEntry> {
  const { receipt_id } = await ctx.chains.append('service', { ...receipt, signed_at: entry.decided_at });
  const kept: FeedbackEntry = { ...entry, receipt_id };
  await ctx.store.run(
    `DELETE FROM scan_feedback WHERE scope = ? AND fingerprint = ? AND ${entry.scope === 'project' ? 'project' : 'org_id'} = ?`,
    entry.scope,
    entry.fingerprint,
    entry.project ?? entry.org_id,
  );
  await insertFeedback(ctx, kept);
  return kept;
}

async function insertFeedback(ctx: Context, entry: FeedbackEntry): Promise<void> {
  await ctx.store.run(
    `INSERT INTO scan_feedback (${FEEDBACK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    entry.feedback_id,
    entry.scope,
    entry.project,
    entry.org_id,
    entry.fingerprint,
    entry.verdict,
    entry.reason,
    entry.type,
    entry.decided_by,
    entry.decided_at,
    entry.receipt_id,
    entry.promoted_from,
  );
}

/**
 * Makes a project's verdict the organization's, replacing the organization's earlier verdict on
 * the same fingerprint; the project's own entry stays. An owner with a governance key decides it.
 */
export async function promoteFeedback(
  ctx: Context,
  caller: OrgCaller,
  input: { feedback_id: string },
): Promise<FeedbackEntry> {
  return await receiptRefusals(ctx, async () => {
    const from = await ctx.store.get<FeedbackEntry>(
      `SELECT ${FEEDBACK_COLUMNS} FROM scan_feedback WHERE feedback_id = ?`,
      input.feedback_id,
    );
    if (!from || from.scope !== 'project') {
      throw new Refusal(
        'not_found',
        `no project verdict ${input.feedback_id}: promote one that svc_scan_feedback with action \`list\` (or \`svc scan feedback list\`) shows with scope project`,
        { feedback_id: input.feedback_id },
        {
          kind: 'scan.feedback.promote.deny',
          org_id: caller.orgId,
          body: { ...actorOf(caller), feedback_id: input.feedback_id, reason: 'unknown_feedback' },
        },
      );
    }
    const decidedAt = nowIso(ctx);
    return await ctx.store.write(async () => {
      const entry = {
        ...from,
        feedback_id: newFeedbackId(),
        scope: 'organization' as const,
        project: null,
        org_id: caller.orgId,
        decided_by: `organization key ${caller.keyId}`,
        decided_at: decidedAt,
        promoted_from: from.feedback_id,
      };
      return await keepFeedback(ctx, entry, {
        kind: 'scan.feedback.promote',
        org_id: caller.orgId,
        body: {
          ...actorOf(caller),
          feedback_id: entry.feedback_id,
          promoted_from: from.feedback_id,
          fingerprint: entry.fingerprint,
          type: entry.type,
          verdict: entry.verdict,
          reason: entry.reason,
          first_decided_by: from.decided_by,
        },
      });
    });
  });
}

/** The organization's verdicts, newest first. */
export async function organizationFeedback(ctx: Context, caller: OrgCaller): Promise<FeedbackEntry[]> {
  return await ctx.store.all<FeedbackEntry>(
    `SELECT ${FEEDBACK_COLUMNS} FROM scan_feedback WHERE scope = 'organization' AND org_id = ? ORDER BY decided_at DESC`,
    caller.orgId,
  );
}
