// Claude Code's PreToolUse event as a zod schema: the fields svc reads. The hook checks an event
// without zod (claude.ts) and loads this only to say why an event is refused.
import { z } from 'zod';

/** The fields of a PreToolUse event svc reads; the rest (session, transcript) it leaves alone. */
export const ClaudeEventSchema = z.looseObject({
  hook_event_name: z.literal('PreToolUse'),
  cwd: z.string().min(1),
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
});
export type ClaudeEvent = z.infer<typeof ClaudeEventSchema>;
