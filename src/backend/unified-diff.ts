// The unified diff format (as `diff -u` and `git diff` write it): parsed defensively into files and
// hunks, and applied to a file's text strictly: every hunk at the line its header names, its
// context and removed lines matching exactly, hunks in order. No fuzz and no offsets: a patch
// reviewed against one text is never applied to another.

/** Why a diff is refused: a closed set, so callers say what went wrong without parsing messages. */
export const DIFF_ERROR_CODES = ['malformed', 'unsupported', 'unsafe_path', 'does_not_apply'] as const;
export type DiffErrorCode = (typeof DIFF_ERROR_CODES)[number];

export class DiffError extends Error {
  readonly code: DiffErrorCode;
  /** The file the error is about, as the diff names it, when there is one. */
  readonly path: string | undefined;

  constructor(code: DiffErrorCode, message: string, path?: string) {
    super(message);
    this.code = code;
    this.path = path;
  }
}

export interface HunkLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: HunkLine[];
  /** A `\ No newline at end of file` after the hunk's last old-side line. */
  oldNoNewline: boolean;
  /** The same after its last new-side line. */
  newNoNewline: boolean;
}

export interface FileDiff {
  /** The path before, relative; null for a new file (`/dev/null`). */
  oldPath: string | null;
  /** The path after, relative; null for a deleted file. */
  newPath: string | null;
  hunks: Hunk[];
}

/** The path a file diff touches: the new path, or the old one for a deletion. */
export const pathOf = (file: FileDiff): string => (file.newPath ?? file.oldPath)!;

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const NO_NEWLINE = '\\ No newline at end of file';

/** A path from a `---` or `+++` line: the timestamp cut off, git's `a/` or `b/` prefix removed. */
function headerPath(line: string, prefix: 'a/' | 'b/'): string | null {
  let path = line.slice(4);
  const tab = path.indexOf('\t');
  if (tab >= 0) path = path.slice(0, tab);
  path = path.trimEnd();
  if (path === '/dev/null') return null;
  if (path.startsWith('"')) {
    throw new DiffError('unsupported', `quoted file names are not supported: ${path}`);
  }
  if (path.startsWith(prefix)) path = path.slice(2);
  checkPath(path);
  return path;
}

/**
 * A diff names files under the project it is applied to, never outside it: relative, without `..`,
 * without a NUL or a backslash (a separator on Windows), and not in `.git`.
 */
function checkPath(path: string): void {
  const segments = path.split('/');
  if (
    path === '' ||
    path.startsWith('/') ||
    /^[A-Za-z]:/.test(path) ||
    path.includes('\0') ||
    path.includes('\\') ||
    segments.some((s) => s === '..' || s === '') ||
    segments[0] === '.git'
  ) {
    throw new DiffError(
      'unsafe_path',
      `a diff may name only relative paths inside the project: ${path}`,
      path,
    );
  }
}

/** Parses a unified diff into its files, in order. Anything but files and hunks is skipped. */
export function parseUnifiedDiff(text: string): FileDiff[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const files: FileDiff[] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!.replace(/\r$/, '');
    if (/^(rename|copy) (from|to) /.test(line) || line.startsWith('GIT binary patch')) {
      throw new DiffError('unsupported', 'renames, copies and binary changes are not supported');
    }
    if (line.startsWith('Binary files ')) {
      throw new DiffError('unsupported', 'binary changes are not supported');
    }
    if (!line.startsWith('--- ')) {
      i++;
      continue;
    }
    const plus = lines[i + 1]?.replace(/\r$/, '');
    if (plus === undefined || !plus.startsWith('+++ ')) {
      throw new DiffError('malformed', `line ${i + 1}: a --- line must be followed by a +++ line`);
    }
    const file: FileDiff = { oldPath: headerPath(line, 'a/'), newPath: headerPath(plus, 'b/'), hunks: [] };
    if (file.oldPath === null && file.newPath === null) {
      throw new DiffError('malformed', `line ${i + 1}: both sides are /dev/null`);
    }
    if (file.oldPath !== null && file.newPath !== null && file.oldPath !== file.newPath) {
      throw new DiffError('unsupported', `renames are not supported: ${file.oldPath} to ${file.newPath}`);
    }
    const path = pathOf(file);
    if (seen.has(path)) throw new DiffError('malformed', `${path} appears twice in the diff`, path);
    seen.add(path);
    i += 2;
    while (i < lines.length && lines[i]!.startsWith('@@')) {
      i = parseHunk(lines, i, file, path);
    }
    if (file.hunks.length === 0) throw new DiffError('malformed', `${path} has no hunk`, path);
    files.push(file);
  }
  if (files.length === 0)
    throw new DiffError('malformed', 'no file changes found: expected --- and +++ lines');
  return files;
}

/** Reads one hunk starting at `lines[at]`; answers the index after it. */
function parseHunk(lines: string[], at: number, file: FileDiff, path: string): number {
  const header = HUNK_HEADER.exec(lines[at]!);
  if (!header) throw new DiffError('malformed', `line ${at + 1}: not a hunk header`, path);
  const hunk: Hunk = {
    oldStart: Number(header[1]),
    oldLines: header[2] === undefined ? 1 : Number(header[2]),
    newStart: Number(header[3]),
    newLines: header[4] === undefined ? 1 : Number(header[4]),
    lines: [],
    oldNoNewline: false,
    newNoNewline: false,
  };
  if (file.oldPath === null && hunk.oldLines !== 0) {
    throw new DiffError('malformed', `line ${at + 1}: a new file's hunk removes nothing`, path);
  }
  if (file.newPath === null && hunk.newLines !== 0) {
    throw new DiffError('malformed', `line ${at + 1}: a deleted file's hunk adds nothing`, path);
  }
  const previous = file.hunks.at(-1);
  if (previous && hunk.oldStart < previous.oldStart + previous.oldLines) {
    throw new DiffError('malformed', `line ${at + 1}: hunks overlap or are out of order`, path);
  }
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let i = at + 1;
  let last: ' ' | '-' | '+' | undefined;
  while (i < lines.length && (oldLeft > 0 || newLeft > 0 || lines[i] === NO_NEWLINE)) {
    const line = lines[i]!;
    if (line === NO_NEWLINE) {
      if (last === undefined)
        throw new DiffError('malformed', `line ${i + 1}: stray no-newline marker`, path);
      if (last !== '+') hunk.oldNoNewline = true;
      if (last !== '-') hunk.newNoNewline = true;
      i++;
      continue;
    }
    // An empty line is a context line whose leading space an editor removed.
    const op = line === '' ? ' ' : line[0];
    if (op !== ' ' && op !== '-' && op !== '+') break;
    if (op !== '+' && oldLeft-- === 0) break;
    if (op !== '-' && newLeft-- === 0) break;
    hunk.lines.push({ op, text: line.slice(1) });
    last = op;
    i++;
  }
  if (oldLeft !== 0 || newLeft !== 0) {
    throw new DiffError(
      'malformed',
      `line ${at + 1}: the hunk's lines do not add up to its header (-${hunk.oldLines} +${hunk.newLines})`,
      path,
    );
  }
  file.hunks.push(hunk);
  return i;
}

/** A text as lines, and whether it ends with a newline. */
function splitText(text: string): { lines: string[]; eol: boolean } {
  if (text === '') return { lines: [], eol: true };
  const lines = text.split('\n');
  const eol = lines.at(-1) === '';
  if (eol) lines.pop();
  return { lines, eol };
}

/**
 * The file's text after the diff: `original` is its text now (null: it does not exist); the
 * answer is null for a deletion. A hunk that does not match exactly throws `does_not_apply`.
 */
export function applyFileDiff(original: string | null, file: FileDiff): string | null {
  const path = pathOf(file);
  const fail = (why: string) => new DiffError('does_not_apply', `${path}: ${why}`, path);
  if (file.oldPath === null && original !== null) throw fail('the diff creates it, but it exists');
  if (file.oldPath !== null && original === null) throw fail('it does not exist');
  const { lines, eol } = splitText(original ?? '');
  const out: string[] = [];
  let cursor = 0;
  let outEol = eol;
  for (const hunk of file.hunks) {
    // A hunk that removes nothing names the line after which it adds.
    const at = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (at < cursor || at > lines.length) throw fail(`the hunk at line ${hunk.oldStart} is out of place`);
    out.push(...lines.slice(cursor, at));
    let position = at;
    for (const { op, text } of hunk.lines) {
      if (op === '+') {
        out.push(text);
        continue;
      }
      if (lines[position] !== text) {
        throw fail(`line ${position + 1} does not match the hunk at line ${hunk.oldStart}`);
      }
      if (op === ' ') out.push(text);
      position++;
    }
    cursor = position;
    const atEnd = cursor === lines.length;
    if (hunk.oldNoNewline && (!atEnd || eol)) {
      throw fail(`the hunk at line ${hunk.oldStart} expects the file to end without a newline`);
    }
    if (atEnd) {
      if (!hunk.oldNoNewline && !eol && hunk.oldLines > 0) {
        throw fail(`the file ends without a newline, which the hunk at line ${hunk.oldStart} does not say`);
      }
      outEol = !hunk.newNoNewline;
    }
  }
  out.push(...lines.slice(cursor));
  if (file.newPath === null) {
    if (out.length > 0) throw fail('the diff deletes it, but lines would remain');
    return null;
  }
  if (out.length === 0) return '';
  return out.join('\n') + (outEol ? '\n' : '');
}
