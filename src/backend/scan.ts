// A scan of a folder on this computer with the scanner's rule set, under this store's fingerprint
// key: what `svc scan` runs. The key is derived from the vault, so the same value has the same
// fingerprint in every scan this store makes, and nobody without the vault can test a guess
// against a fingerprint.
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { scanKey } from './scan-key.ts';
import type { Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { SCANNER_RULES, scanFolder, type FolderScanOptions } from './scan-folder.ts';
import {
  applyVerdicts,
  listFeedback,
  markFinding,
  knownFinding,
  recordScan,
  verdictsFor,
  type MarkInput,
  type StoredScan,
} from './scan-store.ts';
import { applyPlanToProject, planFor, type ProjectApplyInput } from './scan-plan.ts';
import type { RedactOptions } from './redact.ts';
import { projectRootOf } from '../gate/local.ts';
import { realPath } from '../gate/resolve.ts';

export type ScanPathOptions = Pick<FolderScanOptions, 'threads' | 'onProgress' | 'admit' | 'confirm'> & {
  /** Who scans, as the kept scan names them: `svc scan`, or an agent's client. */
  scannedBy: string;
};

/**
 * Scans a folder, or one file (as the only file of its folder's scan), leaves out the findings a
 * verdict of its project or organization silenced, and keeps the scan for feedback and the plan.
 * Finding paths are relative to the folder scanned (a file's own folder, for one file). A path
 * that is not there is refused with what to do, and so is a scan that could read nothing it was
 * given (`nothingReadable`): kept, but never answered as "nothing found".
 */
export async function scanPath(ctx: Context, path: string, options: ScanPathOptions): Promise<StoredScan> {
  // An empty path (an unset `"$DIR"` in a script) would be the current folder: never a guess.
  if (path.trim() === '') {
    throw new ServiceError('invalid_request', 'the path to scan is empty: give a folder or a file');
  }
  const target = resolve(path);
  let isFile: boolean;
  try {
    isFile = statSync(target).isFile();
  } catch {
    throw new ServiceError('not_found', `nothing to scan at ${target}: give a folder or a file that exists`);
  }
  // Links followed: the project and its rules are found, and plans written, from the real place.
  const root = realPath(isFile ? dirname(target) : target);
  const { scannedBy, ...folderOptions } = options;
  const scan = await scanFolder(root, {
    rules: SCANNER_RULES,
    key: scanKey(ctx),
    ...folderOptions,
    // The gate judges each file under the path as it was named too: a rule on a link's own path
    // (a linked folder, `src/shared/`) holds for what the scan reads through it.
    namedRoot: isFile ? dirname(target) : target,
    ...(isFile ? { only: basename(target) } : {}),
  });
  const project = projectRootOf(root);
  const { findings, silenced } = applyVerdicts(scan.findings, await verdictsFor(ctx, project));
  const kept = await recordScan(ctx, {
    project,
    root,
    scanned_by: scannedBy,
    files_scanned: scan.files_scanned,
    bytes_scanned: scan.bytes_scanned,
    findings,
    silenced,
    skipped: scan.skipped,
  });
  const failed = nothingReadable(path, kept);
  if (failed) throw failed;
  return kept;
}

/**
 * What svc finds on this computer, for its tools and commands: scans, verdicts on findings, the
 * plan with its application to a project, and clean copies. Bound to one store.
 */
export function finderOf(ctx: Context) {
  return {
    scan: (path: string, options: ScanPathOptions) => scanPath(ctx, path, options),
    mark: (input: MarkInput) => markFinding(ctx, input),
    known: (project: string, fingerprint: string) => knownFinding(ctx, project, fingerprint),
    feedback: (project: string) => listFeedback(ctx, project),
    plan: (which: { scan_id: string } | { project: string }) => planFor(ctx, which),
    applyToProject: (input: ProjectApplyInput) => applyPlanToProject(ctx, input),
    // The redaction loads the rules in this thread: only when a copy is asked for.
    redact: async (path: string, options: RedactOptions) =>
      (await import('./redact.ts')).redactPath(ctx, path, options),
  };
}

export type Finder = ReturnType<typeof finderOf>;

/** How many files the first lines of a message name. */
const NAMED = 5;

/**
 * The failure of a scan that read nothing because svc could not read what it was given: the one
 * file, the folder itself, or every file in it. Undefined when anything was scanned, or nothing
 * was unreadable (an empty folder, a binary file).
 */
export function nothingReadable(path: string, scan: StoredScan): ServiceError | undefined {
  const unreadable = scan.skipped.filter((s) => s.reason === 'unreadable');
  if (scan.files_scanned > 0 || unreadable.length === 0) return undefined;
  const named = unreadable.map((s) => (s.file === '.' ? path : s.file));
  const which =
    unreadable.length === 1
      ? named[0]
      : `${unreadable.length} files in ${path} (${named.slice(0, NAMED).join(', ')}${unreadable.length > NAMED ? ', …' : ''})`;
  return new ServiceError(
    'invalid_request',
    `nothing was scanned: svc cannot read ${which}; give a folder or a regular file that this user can read`,
    { scan_id: scan.scan_id, files_scanned: 0, skipped: scan.skipped },
  );
}
