// Gemini CLI's BeforeTool hook (docs/HOOKS.md): its event in, its answer out. Gemini reads only
// `decision` and `reason` (Claude Code's fields are ignored and the tool runs), and an `ask` makes
// `gemini -p` wait forever, so a question is refused, saying that a person must approve.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { GeminiEvent } from './gemini-event.ts';
import {
  approvalReasonOf,
  isRecord,
  mcpAsk,
  nonEmpty as text,
  reasonOf,
  type HookDecision,
  type HookFormat,
  type ToolAsk,
  readEvent,
} from './format.ts';

/** The event when it is a BeforeTool event svc can read (gemini-event.ts says the same, with zod). */
export function eventOf(input: unknown): GeminiEvent | undefined {
  if (!isRecord(input)) return undefined;
  const { hook_event_name, cwd, tool_name, tool_input, mcp_context } = input;
  const context =
    mcp_context === undefined ||
    (isRecord(mcp_context) &&
      (mcp_context.server_name === undefined || typeof mcp_context.server_name === 'string'));
  return hook_event_name === 'BeforeTool' && text(cwd) && text(tool_name) && isRecord(tool_input) && context
    ? (input as GeminiEvent)
    : undefined;
}

/** Every string among the named arguments: tools renamed theirs across releases, and each is decided. */
const stringsOf = (input: Record<string, unknown>, names: string[]) =>
  names.flatMap((name) => {
    const value = text(input[name]);
    return value ? [value] : [];
  });

/** Characters that make a path segment a glob pattern for Gemini's matcher. */
const GLOB_MAGIC = /[*?[\]{}]/;

/**
 * The folder a pattern can reach files in: the one before its first glob segment (`src` for
 * `src/**` patterns), and above it as far as the `..` after it climb (`src/*\/../../x` reaches the
 * folder above `src`); null for a plain path.
 */
function globFolder(pattern: string): string | null {
  const segments = pattern.replaceAll('\\', '/').split('/');
  const first = segments.findIndex((segment) => GLOB_MAGIC.test(segment));
  if (first < 0) return null;
  let level = 0;
  let lowest = 0;
  for (const segment of segments.slice(first)) {
    if (segment === '..') level--;
    else if (segment !== '.' && segment !== '') level++;
    lowest = Math.min(lowest, level);
  }
  const folder = [...segments.slice(0, first), ...Array<string>(-lowest).fill('..')].join('/');
  return folder || (pattern.startsWith('/') ? '/' : '.');
}

/** The nearest folder holding every one of `paths` (resolved against `cwd`). */
function commonFolder(paths: string[], cwd: string): string {
  const holds = (folder: string, path: string) => {
    const rel = relative(folder, path);
    return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  };
  return paths
    .map((path) => resolve(cwd, path))
    .reduce((common, path) => {
      let folder = common;
      while (!holds(folder, path)) folder = dirname(folder);
      return folder;
    });
}

/**
 * `read_many_files` reads every file its `include` patterns match: a plain path is a read of that
 * file; a pattern is a search of the folder before its first glob segment. The gate decides one
 * search at a time, so several places at once are decided as a search of the folder holding them all.
 */
function readManyAsk(patterns: string[], cwd: string): ToolAsk {
  const folders: string[] = [];
  const files: string[] = [];
  for (const pattern of patterns) {
    const folder = globFolder(pattern);
    if (folder === null) files.push(pattern);
    else folders.push(folder);
  }
  if (folders.length === 0) return { kind: 'paths', action: 'read', paths: files };
  const places = [...folders, ...files.map((file) => dirname(resolve(cwd, file)))];
  return { kind: 'folder', action: 'search', folder: commonFolder(places, cwd) };
}

function askOf(event: GeminiEvent): ToolAsk {
  const input = event.tool_input;
  switch (event.tool_name) {
    case 'read_file': {
      const paths = stringsOf(input, ['file_path', 'absolute_path', 'path']);
      return paths.length
        ? { kind: 'paths', action: 'read', paths }
        : { kind: 'ungated', why: 'no file_path' };
    }
    case 'write_file':
    case 'replace': {
      const paths = stringsOf(input, ['file_path', 'absolute_path', 'path']);
      return paths.length
        ? { kind: 'paths', action: 'write', paths }
        : { kind: 'ungated', why: 'no file_path' };
    }
    case 'read_many_files': {
      const include = [input.include, input.paths].flatMap((list) =>
        Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string' && p.length > 0) : [],
      );
      return include.length ? readManyAsk(include, event.cwd) : { kind: 'ungated', why: 'no include' };
    }
    case 'grep_search':
    case 'search_file_content':
      // Without a folder both search the working folder.
      return { kind: 'folder', action: 'search', folder: text(input.dir_path) ?? text(input.path) ?? '.' };
    case 'glob': {
      const folder = text(input.dir_path) ?? text(input.path) ?? '.';
      const within = text(input.pattern) ? globFolder(input.pattern as string) : null;
      // Only names under the pattern's own folder can match it.
      return {
        kind: 'folder',
        action: 'search',
        folder: within ? resolve(event.cwd, folder, within) : folder,
      };
    }
    case 'list_directory': {
      // A listing shows names, not contents: the folder itself is decided, not what it holds.
      const folder = text(input.dir_path) ?? text(input.path);
      return folder
        ? { kind: 'paths', action: 'search', paths: [folder] }
        : { kind: 'ungated', why: 'no dir_path' };
    }
    case 'run_shell_command': {
      const command = text(input.command);
      return command ? { kind: 'shell', command } : { kind: 'ungated', why: 'no command' };
    }
    default: {
      const mcp = event.tool_name.startsWith('mcp_');
      // Tools a project defines for itself (`discovered_tool_…`) take arguments as MCP tools do.
      if (!mcp && !event.tool_name.startsWith('discovered_tool_'))
        return { kind: 'ungated', why: `${event.tool_name} touches no file` };
      // svc's own tools ask the gate themselves.
      const server = event.mcp_context?.server_name;
      if (mcp && (server === 'svc' || (server === undefined && event.tool_name.startsWith('mcp_svc_'))))
        return { kind: 'ungated', why: "svc's own tool" };
      return mcpAsk(input);
    }
  }
}

/** The answer: nothing when allowed (Gemini goes on with its own checks); `decision: "deny"` otherwise. */
function answerOf(decision: HookDecision): { stdout: string; code: number } {
  switch (decision.outcome) {
    case 'allowed':
    case 'limited':
      return { stdout: '', code: 0 };
    case 'ask':
      return {
        stdout: JSON.stringify({ decision: 'deny', reason: approvalReasonOf(decision, 'Gemini CLI') }),
        code: 0,
      };
    case 'clean_copy':
    case 'denied':
      return { stdout: JSON.stringify({ decision: 'deny', reason: reasonOf(decision) }), code: 0 };
  }
}

export const gemini: HookFormat = {
  client: 'gemini-cli',
  async read(input) {
    const event = await readEvent(
      input,
      eventOf,
      async () => (await import('./gemini-event.ts')).GeminiEventSchema,
      'a BeforeTool event',
    );
    if (typeof event === 'string') return event;
    // A command runs in its `dir_path` (a folder of the workspace Gemini has checked), the working folder without one.
    const dir =
      event.tool_name === 'run_shell_command'
        ? (text(event.tool_input.dir_path) ?? text(event.tool_input.directory))
        : undefined;
    return { cwd: dir ? resolve(event.cwd, dir) : event.cwd, ask: askOf(event), answer: answerOf };
  },
};
