// Claude Code's PreToolUse hook: its event in, its answer out (docs/HOOKS.md). This file only
// translates: which action and paths a tool call is, and how a decision is said back. The gate
// decides. Codex sends the same event and reads the same answer (src/hooks/codex.ts builds on this).
import type { ClaudeEvent } from './claude-event.ts';
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

export type { ClaudeEvent } from './claude-event.ts';

/** The event when it is a PreToolUse event svc can read (claude-event.ts says the same, with zod). */
export function eventOf(input: unknown): ClaudeEvent | undefined {
  if (!isRecord(input)) return undefined;
  const { hook_event_name, cwd, tool_name, tool_input } = input;
  return hook_event_name === 'PreToolUse' && text(cwd) && text(tool_name) && isRecord(tool_input)
    ? (input as ClaudeEvent)
    : undefined;
}

export function askOf(event: ClaudeEvent): ToolAsk {
  const input = event.tool_input;
  switch (event.tool_name) {
    case 'Read': {
      const path = text(input.file_path);
      return path
        ? { kind: 'paths', action: 'read', paths: [path] }
        : { kind: 'ungated', why: 'no file_path' };
    }
    case 'Edit':
    case 'Write':
    case 'MultiEdit': {
      const path = text(input.file_path);
      return path
        ? { kind: 'paths', action: 'write', paths: [path] }
        : { kind: 'ungated', why: 'no file_path' };
    }
    case 'NotebookEdit': {
      const path = text(input.notebook_path);
      return path
        ? { kind: 'paths', action: 'write', paths: [path] }
        : { kind: 'ungated', why: 'no notebook_path' };
    }
    // Without a path both search the working folder, each with ripgrep: Grep honours `.gitignore`
    // files and takes `glob` and `type`; Glob lists every name its pattern matches, ignored or not.
    case 'Grep': {
      const globs = grepGlobs(text(input.glob));
      const type = text(input.type);
      return {
        kind: 'folder',
        action: 'search',
        folder: text(input.path) ?? event.cwd,
        filter: {
          ...(globs.length ? { globs } : {}),
          ...(type ? { types: [type] } : {}),
          gitignore: true,
          configurable: true,
        },
      };
    }
    case 'Glob': {
      const pattern = text(input.pattern);
      return {
        kind: 'folder',
        action: 'search',
        folder: text(input.path) ?? event.cwd,
        ...(pattern ? { filter: { globs: [pattern], configurable: true } } : {}),
      };
    }
    case 'Bash': {
      const command = text(input.command);
      return command ? { kind: 'shell', command } : { kind: 'ungated', why: 'no command' };
    }
    default: {
      if (!event.tool_name.startsWith('mcp__'))
        return { kind: 'ungated', why: `${event.tool_name} touches no file` };
      // svc's own tools ask the gate themselves.
      if (event.tool_name.startsWith('mcp__svc__')) return { kind: 'ungated', why: "svc's own tool" };
      return mcpAsk(input);
    }
  }
}

/**
 * Grep's `glob` as Claude Code hands it to ripgrep: words apart by spaces, and each word without
 * braces split at its commas (`"*.ts,*.tsx"` is two globs; `"*.{ts,tsx}"` one).
 */
export function grepGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  return glob
    .split(/\s+/)
    .flatMap((word) => (word.includes('{') && word.includes('}') ? [word] : word.split(',')))
    .filter(Boolean);
}

/**
 * The answer in PreToolUse's words: what goes to stdout, and the exit code. Allowed calls answer
 * nothing. A client that cannot ask its person (`cannotAsk` names it) gets a refusal instead of a
 * question, saying that a person must approve.
 */
export function answerOf(decision: HookDecision, cannotAsk?: string): { stdout: string; code: number } {
  const say = (permissionDecision: 'deny' | 'ask', permissionDecisionReason: string) => ({
    stdout: JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason },
    }),
    code: 0,
  });
  switch (decision.outcome) {
    case 'allowed':
    case 'limited':
      return { stdout: '', code: 0 };
    case 'ask':
      return cannotAsk ? say('deny', approvalReasonOf(decision, cannotAsk)) : say('ask', reasonOf(decision));
    case 'clean_copy':
    case 'denied':
      // A clean-copy-only file is not read either: the reason names its clean copy instead.
      return say('deny', reasonOf(decision));
  }
}

/** A format for a client that sends PreToolUse events: its name in rules, its tools, and whether it can ask. */
export function preToolUseFormat(options: {
  client: string;
  askOf: (event: ClaudeEvent) => ToolAsk;
  /** The client's name in a refusal, when it cannot ask its person. */
  cannotAsk?: string;
}): HookFormat {
  return {
    client: options.client,
    async read(input) {
      const event = await readEvent(
        input,
        eventOf,
        async () => (await import('./claude-event.ts')).ClaudeEventSchema,
        'a PreToolUse event',
      );
      if (typeof event === 'string') return event;
      return {
        cwd: event.cwd,
        ask: options.askOf(event),
        answer: (decision) => answerOf(decision, options.cannotAsk),
      };
    },
  };
}

export const claude = preToolUseFormat({ client: 'claude-code', askOf });
