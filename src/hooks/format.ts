// What every client's hook format provides: reading its event into what the call asks of the gate,
// and saying a decision back in the client's words. src/entry/hook.ts runs any of them alike.
import { enableCompileCache } from '../config/compile-cache.ts';
import type { GateAsk } from '../gate/check.ts';
import type { Decision } from '../gate/engine.ts';
import { printable } from '../backend/printable.ts';

/** What a tool call asks of the gate, or that it touches nothing the gate decides. */
export type ToolAsk = GateAsk | { kind: 'ungated'; why: string };

/**
 * A decision as a hook says it: for a read the gate allows only clean, where svc put the file's
 * clean copy for the agent (or why it could not make one).
 */
export type HookDecision = Decision & { clean_copy?: { path: string } | { unavailable: string } };

/** An event read: where the agent works, what it asks, and how to answer this event. */
export interface HookCall {
  cwd: string;
  ask: ToolAsk;
  /** The answer to this event: what goes to stdout, and the exit code. */
  answer(decision: HookDecision): { stdout: string; code: number };
}

export interface HookFormat {
  /** The client's name in decisions and rules' `who`. */
  client: string;
  /**
   * Reads the event; a string says why it is not an event this format can read. A format checks
   * the usual event without zod and loads its zod schema only to say why one is refused: a hook
   * starts before every tool call, and loading zod takes longer than the runtime's own start.
   */
  read(event: unknown): HookCall | string | Promise<HookCall | string>;
}

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
export { text as nonEmpty };

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Argument names MCP servers use for files and folders. */
const MCP_PATH_ARGUMENTS = [
  'path',
  'paths',
  'file',
  'file_path',
  'filepath',
  'filename',
  'source',
  'destination',
  'directory',
  'dir',
];

/** Strings an MCP call holds, at most this deep and this many, looked at for paths. */
const MCP_DEPTH = 4;
const MCP_STRINGS = 256;

/**
 * An MCP tool call's file arguments, decided as reads: under the names servers use for them, and
 * any other string, at any depth, that is written as a path (`/…`, `./…`, `../…`, `~/…`) or a
 * `file://` URL, or sits under a name that says path, file, dir or uri (`relative_path`, `filePath`).
 */
export function mcpAsk(input: Record<string, unknown>): ToolAsk {
  const found = new Set<string>();
  let seen = 0;
  const visit = (value: unknown, name: string, depth: number): void => {
    if (depth > MCP_DEPTH || ++seen > MCP_STRINGS) return;
    if (typeof value === 'string') {
      const local = value.replace(/^file:\/\/(?:localhost)?(?=\/)/i, '');
      const named = MCP_PATH_ARGUMENTS.includes(name) || /path|file|dir|uri|folder/i.test(name);
      if (local && (named || local !== value || /^(?:\/|\.{1,2}\/|~\/)/.test(local))) found.add(local);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, name, depth + 1);
    } else if (isRecord(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, key, depth + 1);
    }
  };
  visit(input, '', 0);
  const paths = [...found];
  return paths.length
    ? { kind: 'paths', action: 'read', paths }
    : { kind: 'ungated', why: 'no file argument' };
}

/** The reason a denial or a question carries, written for the agent that reads it. */
export function reasonOf(decision: HookDecision): string {
  // The client shows it to the person (Claude Code's question for an `ask`): a path is the agent's
  // to choose, and a line break or an escape in it must not add words of its own to that.
  return printable(reasonOfDecision(decision));
}

function reasonOfDecision(decision: HookDecision): string {
  const reason = `svc: ${decision.explanation}. ${decision.to_change}.`;
  if (decision.outcome === 'clean_copy') {
    const copy = decision.clean_copy;
    if (copy && 'path' in copy) {
      return `${reason} Only a clean copy may be read: svc wrote one for you at ${copy.path} (its secrets and personal data replaced by tokens such as [EMAIL_1]); read that file instead, and keep the tokens as they are.`;
    }
    if (copy) {
      return `${reason} Only a clean copy may be read, and svc could not make one (${copy.unavailable}): ask the person for the part you need.`;
    }
    return `${reason} Only a clean copy may be read: read one file at a time with your file-reading tool and svc gives you its clean copy's path, or make a clean copy with svc_redact (\`svc redact PATH\`) and work on that.`;
  }
  if (decision.outcome === 'denied')
    return `${reason} The owner protects it: do not look for another way to read it.`;
  return reason;
}

/**
 * The reason for a question put to a client that cannot ask its person: `gemini -p` waits forever
 * on one, and Codex runs the tool. The call is refused instead, saying that a person must approve it.
 */
export function approvalReasonOf(decision: Decision, client: string): string {
  return `${reasonOf(decision)} A person must approve this first, and ${client} cannot ask them here, so svc refused it: tell the person what you need and why.`;
}

/** What a zod schema's `safeParse` answers: the data, or the issues. */
type Verdict<E> = { success: true; data: E } | { success: false; error: { issues: { message: string }[] } };

/**
 * A client's event, checked by plain code first (`quick`, what a hook uses at start); an input
 * it refuses goes to the event's zod schema, loaded only then, which decides and says why. The
 * event, or why it is not one `what` svc can read.
 */
export async function readEvent<E>(
  input: unknown,
  quick: (input: unknown) => E | undefined,
  schema: () => Promise<{ safeParse(input: unknown): Verdict<E> }>,
  what: string,
): Promise<E | string> {
  const event = quick(input);
  if (event) return event;
  enableCompileCache();
  const parsed = (await schema()).safeParse(input);
  return parsed.success
    ? parsed.data
    : `the event is not ${what} svc can read (${parsed.error.issues[0]!.message})`;
}
