// `svc hook install`: puts svc's hook into a client's settings file, merged with what is there,
// never clobbering it; running it twice changes nothing; `--uninstall` takes out only what it put
// in. The command names the runtime and bin/svc.js by absolute path, so it works from any folder
// the client runs in (outside this checkout `npx svc` is another package).
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

export const INSTALL_CLIENTS = ['claude'] as const;
export type InstallClient = (typeof INSTALL_CLIENTS)[number];
export type InstallScope = 'user' | 'project';

/** The tools whose calls Claude Code hands the hook: the file tools, the shell and every MCP tool. */
export const CLAUDE_MATCHER = 'Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash|mcp__.*';

export class InstallError extends Error {}

export interface InstallResult {
  file: string;
  changed: boolean;
  /** What was done, in words. */
  summary: string;
}

/** The settings file a client reads for a scope. */
export function settingsFile(
  client: InstallClient,
  scope: InstallScope,
  where: { home: string; project: string },
): string {
  void client;
  return scope === 'user'
    ? join(where.home, '.claude', 'settings.json')
    : join(where.project, '.claude', 'settings.json');
}

/** The hook's command line: the runtime and svc by absolute path, quoted for the shell. */
export function hookCommand(runtime: string, svcBin: string, client: InstallClient): string {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  return `${quote(runtime)} ${quote(svcBin)} hook ${client}`;
}

/** A hook entry svc put there: its command runs `… svc.js hook <client>` (whatever the paths were then). */
const isOurs = (command: unknown, client: InstallClient) =>
  typeof command === 'string' && new RegExp(`svc(\\.js)?'? hook ${client}$`).test(command);

type Json = Record<string, unknown>;

interface HookGroup {
  matcher?: string;
  hooks?: { type?: string; command?: string }[];
}

function read(file: string): Json {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InstallError(`${file} is not valid JSON: fix it first; svc changes nothing it cannot read`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InstallError(`${file} does not hold a JSON object: svc changes nothing it cannot read`);
  }
  return parsed as Json;
}

function write(file: string, settings: Json): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(settings, null, 2)}\n`);
  renameSync(temp, file);
}

/** Our groups taken out of PreToolUse; groups others put there are kept as they are. */
function without(settings: Json, client: InstallClient): Json {
  const hooks = settings.hooks as Record<string, HookGroup[] | undefined> | undefined;
  const groups = hooks?.PreToolUse;
  if (!Array.isArray(groups)) return settings;
  const kept = groups
    .map((group) => ({ ...group, hooks: group.hooks?.filter((h) => !isOurs(h.command, client)) }))
    .filter((group, i) => (group.hooks?.length ?? 0) > 0 || (groups[i]!.hooks?.length ?? 0) === 0);
  const nextHooks: Record<string, unknown> = { ...hooks };
  if (kept.length) nextHooks.PreToolUse = kept;
  else delete nextHooks.PreToolUse;
  const next: Json = { ...settings, hooks: nextHooks };
  if (Object.keys(nextHooks).length === 0) delete next.hooks;
  return next;
}

export function install(options: {
  client: InstallClient;
  file: string;
  command: string;
  uninstall?: boolean;
}): InstallResult {
  const { client, file, command } = options;
  const before = read(file);
  const cleaned = without(before, client);
  if (options.uninstall) {
    if (JSON.stringify(cleaned) === JSON.stringify(before)) {
      return { file, changed: false, summary: `svc's hook was not in ${file}; nothing changed` };
    }
    // A file that held only svc's hook goes away again.
    if (Object.keys(cleaned).length === 0) unlinkSync(file);
    else write(file, cleaned);
    return { file, changed: true, summary: `removed svc's hook from ${file}` };
  }
  const hooks = { ...(cleaned.hooks as Json | undefined) };
  const groups = Array.isArray(hooks.PreToolUse) ? (hooks.PreToolUse as HookGroup[]) : [];
  hooks.PreToolUse = [...groups, { matcher: CLAUDE_MATCHER, hooks: [{ type: 'command', command }] }];
  const next = { ...cleaned, hooks };
  if (JSON.stringify(next) === JSON.stringify(before)) {
    return { file, changed: false, summary: `svc's hook is already in ${file}; nothing changed` };
  }
  write(file, next);
  return {
    file,
    changed: true,
    summary: `svc's hook is in ${file}: ${client} asks svc before ${CLAUDE_MATCHER.replaceAll('|', ', ')}`,
  };
}
