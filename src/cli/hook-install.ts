// `svc hook install`: puts svc's hook into a client's settings file, merged with what is there,
// never clobbering it; running it twice changes nothing; `--uninstall` takes out only what it put
// in, giving back the file as it was. Each client is data (where its file is, which events, what an
// entry looks like); one merge serves them all. The command names the runtime and bin/svc.js by
// absolute path, so it works from any folder the client runs in (outside this checkout `npx svc`
// is another package), after the store variables set where it was installed.
import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { dirname, join } from 'node:path';
import { addItem, addMember, remove } from './json-text.ts';
import { writeFileAtomic } from '../config/paths.ts';

export type InstallScope = 'user' | 'project';

/** The tools whose calls Claude Code hands the hook: the file tools, the shell and every MCP tool. */
export const CLAUDE_MATCHER = 'Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash|mcp__.*';
/** Gemini CLI's file tools (with the older name of grep_search), its shell, MCP and discovered tools. */
export const GEMINI_MATCHER =
  '^(read_file|read_many_files|write_file|replace|grep_search|search_file_content|glob|list_directory|run_shell_command|mcp_.*|discovered_tool_.*)$';
/** Codex's shell (Bash to hooks), its patches, every MCP tool, and Read (which forks of Codex add). */
export const CODEX_MATCHER = '^(Bash|apply_patch|Read|mcp__.*)$';

interface ClientHooks {
  /** The folder holding the settings, in the home folder (user) or the project (project). */
  folder: string;
  file: string;
  /** A variable naming the user-level folder instead of `~/<folder>` when set. */
  homeVariable?: string;
  /** The events svc hooks, each with the tool names it matches; null for an event without a matcher. */
  events: Record<string, string | null>;
  /** What a new file holds besides the hooks. */
  newFile: Record<string, unknown>;
  /** What the person must still do before the client runs the hook. */
  notes?: (scope: InstallScope, project: string) => string[];
}

export const CLIENT_HOOKS = {
  claude: {
    folder: '.claude',
    file: 'settings.json',
    events: { PreToolUse: CLAUDE_MATCHER },
    newFile: {},
  },
  cursor: {
    folder: '.cursor',
    file: 'hooks.json',
    events: { beforeReadFile: null, beforeShellExecution: null, beforeMCPExecution: null },
    newFile: { version: 1 },
  },
  gemini: {
    folder: '.gemini',
    file: 'settings.json',
    events: { BeforeTool: GEMINI_MATCHER },
    newFile: {},
    notes: () => [
      'Gemini CLI runs hooks only in a folder it trusts (its folder trust, or GEMINI_CLI_TRUST_WORKSPACE=true).',
    ],
  },
  codex: {
    folder: '.codex',
    file: 'hooks.json',
    homeVariable: 'CODEX_HOME',
    events: { PreToolUse: CODEX_MATCHER },
    newFile: {},
    notes: (scope, project) => [
      'Codex runs a new or changed hook only once it is reviewed: trust it in Codex under /hooks.',
      ...(scope === 'project'
        ? [
            `Codex reads a project's hooks only when the project is trusted: [projects."${project}"] with trust_level = "trusted" in Codex's config.toml (in CODEX_HOME, ~/.codex by default).`,
          ]
        : []),
    ],
  },
} satisfies Record<string, ClientHooks>;

export type InstallClient = keyof typeof CLIENT_HOOKS;
export const INSTALL_CLIENTS = Object.keys(CLIENT_HOOKS) as InstallClient[];

export class InstallError extends Error {}

export interface InstallResult {
  file: string;
  changed: boolean;
  /** What was done, in words. */
  summary: string;
  /** What the person must still do before the client runs the hook. */
  notes: string[];
}

/** The settings file a client reads for a scope. */
export function settingsFile(
  client: InstallClient,
  scope: InstallScope,
  where: { home: string; project: string; env: NodeJS.ProcessEnv },
): string {
  const hooks: ClientHooks = CLIENT_HOOKS[client];
  if (scope === 'project') return join(where.project, hooks.folder, hooks.file);
  const moved = hooks.homeVariable ? where.env[hooks.homeVariable]?.trim() : undefined;
  return join(moved || join(where.home, hooks.folder), hooks.file);
}

/**
 * The hook's command line: the runtime and svc by absolute path, quoted for the shell, after the
 * store variables (`SVC_HOME='…'`) it must run with to use the store the installer used.
 */
export function hookCommand(
  runtime: string,
  svcBin: string,
  client: InstallClient,
  variables: Record<string, string> = {},
): string {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const assignments = Object.entries(variables).map(([name, value]) => `${name}=${quote(value)} `);
  return `${assignments.join('')}${quote(runtime)} ${quote(svcBin)} hook ${client}`;
}

/** A hook svc put there: its command runs `… svc.js hook <client>` (whatever the paths were then). */
const isOurs = (handler: unknown, client: InstallClient) =>
  typeof handler === 'object' &&
  handler !== null &&
  typeof (handler as { command?: unknown }).command === 'string' &&
  new RegExp(`svc(\\.js)?'? hook ${client}$`).test((handler as { command: string }).command);

/** svc's entry for one event: a handler, or a group of handlers under a matcher. */
const entryOf = (command: string, matcher: string | null) =>
  matcher === null ? { command } : { matcher, hooks: [{ type: 'command', command }] };

type Json = Record<string, unknown>;

/** Parses settings text; refuses what it cannot read, so nothing it cannot read is ever rewritten. */
function parse(file: string, text: string, client: InstallClient): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InstallError(
      `${file} is not valid JSON: fix it first (svc reads no comments either; the entry to add by hand is svc's hooks/${client}.json); svc changes nothing it cannot read`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InstallError(`${file} does not hold a JSON object: svc changes nothing it cannot read`);
  }
  const hooks = (parsed as Json).hooks;
  const lists = hooks === undefined ? {} : hooks;
  if (typeof lists !== 'object' || lists === null || Array.isArray(lists))
    throw new InstallError(`${file}: "hooks" is not an object: svc changes nothing it cannot read`);
  for (const event of Object.keys(CLIENT_HOOKS[client].events)) {
    const list = (lists as Json)[event];
    if (list !== undefined && !Array.isArray(list))
      throw new InstallError(`${file}: "hooks.${event}" is not a list: svc changes nothing it cannot read`);
  }
  return parsed as Json;
}

const listOf = (settings: Json, event: string) =>
  ((settings.hooks as Json | undefined)?.[event] as unknown[] | undefined) ?? [];

/** Where svc's handlers are in an event's list: a whole entry, or handlers inside another group. */
function oursIn(list: unknown[], client: InstallClient): (string | number)[] | undefined {
  for (const [i, entry] of list.entries()) {
    if (isOurs(entry, client)) return [i];
    const handlers = (entry as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(handlers)) continue;
    const ours = handlers.flatMap((h, j) => (isOurs(h, client) ? [j] : []));
    if (ours.length === handlers.length && ours.length > 0) return [i];
    if (ours.length > 0) return [i, 'hooks', ours[0]!];
  }
  return undefined;
}

/** The text with every handler of svc's taken out, and the lists and the `hooks` object it leaves empty. */
function withoutOurs(text: string, file: string, client: InstallClient): string {
  for (const event of Object.keys(CLIENT_HOOKS[client].events)) {
    for (;;) {
      const settings = parse(file, text, client);
      const at = oursIn(listOf(settings, event), client);
      if (!at) break;
      text = remove(text, ['hooks', event, ...at]);
    }
    const settings = parse(file, text, client);
    if ((settings.hooks as Json | undefined)?.[event] !== undefined && listOf(settings, event).length === 0)
      text = remove(text, ['hooks', event]);
  }
  const hooks = parse(file, text, client).hooks;
  if (hooks !== undefined && Object.keys(hooks as Json).length === 0) text = remove(text, ['hooks']);
  return text;
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
}

export function install(options: {
  client: InstallClient;
  file: string;
  command: string;
  scope: InstallScope;
  project: string;
  uninstall?: boolean;
}): InstallResult {
  const { client, file, command } = options;
  const hooks: ClientHooks = CLIENT_HOOKS[client];
  const events = Object.entries(hooks.events);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const notes = hooks.notes?.(options.scope, options.project) ?? [];
  const unchanged = (summary: string): InstallResult => ({ file, changed: false, summary, notes });

  if (options.uninstall) {
    if (!before.trim()) return unchanged(`svc's hook was not in ${file}; nothing changed`);
    const after = withoutOurs(before, file, client);
    if (after === before) return unchanged(`svc's hook was not in ${file}; nothing changed`);
    const rest = parse(file, after, client);
    // A file that held only svc's hook goes away again.
    if (Object.keys(rest).length === 0 || isDeepStrictEqual(rest, hooks.newFile)) unlinkSync(file);
    else write(file, after);
    return { file, changed: true, summary: `removed svc's hook from ${file}`, notes: [] };
  }

  const entries = Object.fromEntries(events.map(([event, matcher]) => [event, [entryOf(command, matcher)]]));
  let after: string;
  if (!before.trim()) {
    after = `${JSON.stringify({ ...hooks.newFile, hooks: entries }, null, 2)}\n`;
  } else {
    const settings = parse(file, before, client);
    // Already there as it would be written: leave the file alone, wherever the entry sits.
    const inPlace = events.every(([event, matcher]) => {
      const ours = listOf(settings, event).filter((e) => oursIn([e], client));
      return ours.length === 1 && isDeepStrictEqual(ours[0], entryOf(command, matcher));
    });
    if (inPlace) return unchanged(`svc's hook is already in ${file}; nothing changed`);
    after = withoutOurs(before, file, client);
    const current = parse(file, after, client);
    if (current.hooks === undefined) after = addMember(after, [], 'hooks', entries);
    else
      for (const [event, matcher] of events) {
        after =
          (current.hooks as Json)[event] === undefined
            ? addMember(after, ['hooks'], event, [entryOf(command, matcher)])
            : addItem(after, ['hooks', event], entryOf(command, matcher));
      }
  }
  write(file, after);
  const matched = events.map(([event, matcher]) => (matcher ? `${event} (${matcher})` : event)).join(', ');
  return {
    file,
    changed: true,
    summary: `svc's hook is in ${file}: ${client} asks svc on ${matched}`,
    notes,
  };
}
