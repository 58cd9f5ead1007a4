// Cursor's hooks (docs/HOOKS.md): beforeReadFile, beforeShellExecution and beforeMCPExecution, each
// answered with `permission` (allow, deny or ask; beforeReadFile knows only allow and deny) and a
// message for the person and one for the agent. Tested against Cursor's documentation only: no
// Cursor client runs here.
import { z } from 'zod';
import type { Decision } from '../gate/engine.ts';
import { mcpAsk, reasonOf, type HookFormat, type ToolAsk } from './format.ts';

const Common = { workspace_roots: z.array(z.string().min(1)).optional() };

export const CursorEvent = z.discriminatedUnion('hook_event_name', [
  z.looseObject({ hook_event_name: z.literal('beforeReadFile'), file_path: z.string().min(1), ...Common }),
  z.looseObject({
    hook_event_name: z.literal('beforeShellExecution'),
    command: z.string(),
    cwd: z.string().min(1).optional(),
    ...Common,
  }),
  z.looseObject({
    hook_event_name: z.literal('beforeMCPExecution'),
    tool_name: z.string().min(1),
    // An object, or the same as JSON text, depending on Cursor's version.
    tool_input: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
    ...Common,
  }),
]);
type CursorEvent = z.infer<typeof CursorEvent>;

function askOf(event: CursorEvent): ToolAsk | string {
  switch (event.hook_event_name) {
    case 'beforeReadFile':
      return { kind: 'paths', action: 'read', paths: [event.file_path] };
    case 'beforeShellExecution':
      return event.command.trim()
        ? { kind: 'shell', command: event.command }
        : { kind: 'ungated', why: 'no command' };
    case 'beforeMCPExecution': {
      let input: unknown = event.tool_input ?? {};
      if (typeof input === 'string') {
        try {
          input = JSON.parse(input);
        } catch {
          return 'the MCP tool input is not JSON';
        }
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        return 'the MCP tool input is not an object';
      return mcpAsk(input as Record<string, unknown>);
    }
  }
}

export const cursor: HookFormat = {
  client: 'cursor',
  read(input) {
    const parsed = CursorEvent.safeParse(input);
    if (!parsed.success)
      return `the event is not a Cursor event svc can read (${parsed.error.issues[0]!.message})`;
    const event = parsed.data;
    const ask = askOf(event);
    if (typeof ask === 'string') return ask;
    const named = event.hook_event_name === 'beforeShellExecution' ? event.cwd : undefined;
    const cwd = typeof named === 'string' ? named : event.workspace_roots?.[0];
    if (!cwd) return 'the event names neither cwd nor workspace_roots';
    return { cwd, ask, answer: (decision) => answerOf(decision, event.hook_event_name === 'beforeReadFile') };
  },
};

function answerOf(decision: Decision, readingFile: boolean): { stdout: string; code: number } {
  const permission =
    decision.outcome === 'allowed' || decision.outcome === 'limited'
      ? 'allow'
      : decision.outcome === 'ask' && !readingFile
        ? 'ask'
        : // beforeReadFile cannot ask: a file the person would be asked about is not read.
          'deny';
  const message = permission === 'allow' ? undefined : reasonOf(decision);
  return {
    stdout: JSON.stringify({
      permission,
      ...(message ? { user_message: message, ...(readingFile ? {} : { agent_message: message }) } : {}),
    }),
    code: 0,
  };
}
