// Claude Code's PreToolUse hook: its event in, its answer out (docs/HOOKS.md). This file only
// translates: which action and paths a tool call is, and how a decision is said back. The gate
// decides.
import { z } from 'zod';
import type { Action } from '../gate/rules.ts';
import type { Decision } from '../gate/engine.ts';

/** The fields of a PreToolUse event svc reads; the rest (session, transcript) it leaves alone. */
export const ClaudeEvent = z.looseObject({
  hook_event_name: z.literal('PreToolUse'),
  cwd: z.string().min(1),
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
});
export type ClaudeEvent = z.infer<typeof ClaudeEvent>;

/** What a tool call asks of the gate; `folder` marks a search over a folder (decided by its contents). */
export type ToolAsk =
  | { kind: 'paths'; action: Action; paths: string[] }
  | { kind: 'folder'; action: 'search'; folder: string }
  | { kind: 'shell'; command: string }
  | { kind: 'ungated'; why: string };

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** Argument names other MCP servers use for files and folders. */
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
    case 'Grep':
    case 'Glob':
      // Without a path both search the working folder.
      return { kind: 'folder', action: 'search', folder: text(input.path) ?? event.cwd };
    case 'Bash': {
      const command = text(input.command);
      return command ? { kind: 'shell', command } : { kind: 'ungated', why: 'no command' };
    }
    default: {
      if (!event.tool_name.startsWith('mcp__'))
        return { kind: 'ungated', why: `${event.tool_name} touches no file` };
      // svc's own tools ask the gate themselves.
      if (event.tool_name.startsWith('mcp__svc__')) return { kind: 'ungated', why: "svc's own tool" };
      const paths = MCP_PATH_ARGUMENTS.flatMap((name) => {
        const value = input[name];
        if (typeof value === 'string' && value) return [value];
        if (Array.isArray(value))
          return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
        return [];
      });
      return paths.length
        ? { kind: 'paths', action: 'read', paths }
        : { kind: 'ungated', why: 'no file argument' };
    }
  }
}

/** The hook's answer: what goes to stdout, and the exit code. Allowed calls answer nothing. */
export function answerOf(decision: Decision): { stdout: string; code: number } {
  const reason = `svc: ${decision.explanation}. ${decision.to_change}.`;
  const say = (permissionDecision: 'deny' | 'ask', why: string) => ({
    stdout: JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: why },
    }),
    code: 0,
  });
  switch (decision.outcome) {
    case 'allowed':
    case 'limited':
      return { stdout: '', code: 0 };
    case 'ask':
      return say('ask', reason);
    case 'clean_copy':
      // Clean copies come with the redaction module; until then the file is not read at all.
      return say(
        'deny',
        `${reason} Clean copies are not available yet: ask the person for the part you need.`,
      );
    case 'denied':
      return say(
        'deny',
        `${reason} Do not try another way to read it (a shell command, a copy): those are decided the same way.`,
      );
  }
}
