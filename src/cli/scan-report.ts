// What `svc scan` prints (docs/CLI.md): the findings, and the files it did not scan and why, so
// that "nothing found" is never said of files nobody read (a scan that read nothing it was given
// is refused in the core: nothingReadable, backend/scan.ts).
import type { StoredScan } from '../backend/scan-store.ts';
import type { Skipped } from '../backend/scan-files.ts';
import type { ScanProgress } from '../backend/scan-folder.ts';
import { printable } from '../backend/printable.ts';
import { shellQuote } from '../config/command.ts';

/** Why a file was not scanned, in words. */
const NOT_SCANNED: Record<Skipped['reason'], string> = {
  binary: 'binary',
  too_large: 'over 100 MiB',
  unreadable: 'svc cannot read it',
  // Saved anew, removed or linked elsewhere since the walk found it: scanning again reads it.
  changed: 'it changed during the scan; scan again',
  // Its content is ciphertext: `svc open` gives it back, through the gate.
  sealed: 'sealed; svc open gives it back',
  // The person running `svc scan` may wonder why: a rule keeps the file from agents, and the
  // command reads only what an agent may (it may run in an agent's shell).
  protected: 'a rule keeps it from agents, or asks first and got no yes',
};

const BAR_WIDTH = 24;
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

/**
 * The progress bar a terminal shows while `svc scan` runs (on stderr, redrawn in place), by bytes:
 * `svc scan [##########--------------]  42%  1234 of 2901 files, 40.1 of 95.3 MiB`. While the walk
 * still finds files, what it found so far is the whole (`2901+ files`), so the bar can move back.
 */
export function progressBar({ files, bytes, of }: ScanProgress): string {
  const part = of.bytes > 0 ? Math.min(1, bytes / of.bytes) : of.files > 0 ? files / of.files : 0;
  const filled = Math.round(part * BAR_WIDTH);
  const more = of.final ? '' : '+';
  return `svc scan [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(part * 100)).padStart(3)}%  ${files} of ${of.files}${more} files, ${mib(bytes)} of ${mib(of.bytes)}${more} MiB`;
}

/**
 * The last line after findings: what a person does with them, as `svc plan` says how to apply.
 * The plan is of this scan (a later scan of a subfolder would be the project's latest), and a
 * verdict names the scanned project when the person is not in it (`elsewhere`).
 */
export function nextAfterFindings(scan: Pick<StoredScan, 'scan_id' | 'project'>, elsewhere: boolean): string {
  const project = elsewhere ? ` --project ${shellQuote(scan.project)}` : '';
  return `next: svc plan --scan ${scan.scan_id} proposes rules, seals and vault moves for them; svc scan feedback mark FINGERPRINT false_positive${project} leaves one out of later scans`;
}

/** Findings a verdict left out, of either kind. */
const silencedOf = (scan: StoredScan) => scan.silenced.false_positive + scan.silenced.accepted_risk;

/** A file's name as a terminal line may show it (`--json` escapes names as JSON does). */
export { printable };

/** The `--json` object: the scan, with every file it did not scan and why. */
export function scanJson(scan: StoredScan) {
  const { findings, files_scanned, bytes_scanned, scan_id, skipped } = scan;
  const silenced = silencedOf(scan);
  return { findings, files_scanned, bytes_scanned, scan_id, silenced, skipped };
}

/**
 * The lines for a person: one per finding, one per file not scanned for a reason other than being
 * binary (those are many in most folders, and counted), a summary, and after findings the next step.
 */
export function scanText(
  scan: StoredScan,
  pathOf: (file: string) => string,
  /** Whether the person is outside the scanned project (the next step names it). */
  elsewhere = false,
): string {
  const { findings, files_scanned, bytes_scanned, scan_id, skipped } = scan;
  const silenced = silencedOf(scan);
  const counts = new Map<string, number>();
  for (const { reason } of skipped) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const notScanned = skipped.length
    ? `; ${skipped.length} not scanned (${[...counts].map(([reason, n]) => `${n} ${reason.replaceAll('_', ' ')}`).join(', ')})`
    : '';
  // The command that names the rule, for the first protected file, by a path that works where the
  // person ran `svc scan` (a skipped file's name is relative to the scanned folder).
  const held = skipped.find((s) => s.reason === 'protected');
  const why = held
    ? [`why: svc rules explain ${printable(shellQuote(pathOf(held.file)))} --for search names the rule`]
    : [];
  return [
    ...findings.map(
      (f) =>
        `${printable(f.file)}:${f.line}:${f.column}  ${f.category} ${f.type} (${f.rule}, ${f.confidence})  ${f.preview}  ${f.fingerprint}`,
    ),
    ...skipped
      .filter((s) => s.reason !== 'binary')
      .map((s) => `${printable(s.file)}: not scanned (${NOT_SCANNED[s.reason]})`),
    ...why,
    `${findings.length} finding(s) in ${files_scanned} file(s), ${bytes_scanned} bytes${notScanned}${silenced ? `; ${silenced} silenced by feedback` : ''} (scan ${scan_id})`,
    ...(findings.length ? [nextAfterFindings(scan, elsewhere)] : []),
  ].join('\n');
}
