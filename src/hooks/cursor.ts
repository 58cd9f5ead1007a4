// Cursor's hooks (docs/HOOKS.md): beforeReadFile, beforeShellExecution and beforeMCPExecution, each
// answered with `permission` (allow, deny or ask; beforeReadFile knows only allow and deny) and a
// message for the person and one for the agent. Tested against Cursor's documentation only: no
// Cursor client runs here.
import type { CursorEvent } from './cursor-event.ts';
import {
  isRecord,
  mcpAsk,
  nonEmpty,
  reasonOf,
  type HookDecision,
  type HookFormat,
  type ToolAsk,
  readEvent,
} from './format.ts';

const EVENT_NAMES = new Set(['beforeReadFile', 'beforeShellExecution', 'beforeMCPExecution']);

/** The event when it is one svc can read (cursor-event.ts says the same, with zod). */
export function eventOf(input: unknown): CursorEvent | undefined {
  if (!isRecord(input) || !EVENT_NAMES.has(input.hook_event_name as string)) return undefined;
  const { workspace_roots: roots } = input;
  if (roots !== undefined && !(Array.isArray(roots) && roots.every((r) => nonEmpty(r)))) return undefined;
  const fits =
    input.hook_event_name === 'beforeReadFile'
      ? nonEmpty(input.file_path)
      : input.hook_event_name === 'beforeShellExecution'
        ? typeof input.command === 'string' && (input.cwd === undefined || nonEmpty(input.cwd))
        : nonEmpty(input.tool_name) &&
          (input.tool_input === undefined ||
            typeof input.tool_input === 'string' ||
            isRecord(input.tool_input));
  return fits ? (input as CursorEvent) : undefined;
}

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
  async read(input) {
    const event = await readEvent(
      input,
      eventOf,
      async () => (await import('./cursor-event.ts')).CursorEventSchema,
      'a Cursor event',
    );
    if (typeof event === 'string') return event;
    const ask = askOf(event);
    if (typeof ask === 'string') return ask;
    const named = event.hook_event_name === 'beforeShellExecution' ? event.cwd : undefined;
    const cwd = typeof named === 'string' ? named : event.workspace_roots?.[0];
    if (!cwd) return 'the event names neither cwd nor workspace_roots';
    return { cwd, ask, answer: (decision) => answerOf(decision, event.hook_event_name === 'beforeReadFile') };
  },
};

function answerOf(decision: HookDecision, readingFile: boolean): { stdout: string; code: number } {
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
