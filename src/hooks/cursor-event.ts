// Cursor's hook events as a zod schema: the fields svc reads. The hook checks an event without zod
// (cursor.ts) and loads this only to say why an event is refused.
import { z } from 'zod';

const Common = { workspace_roots: z.array(z.string().min(1)).optional() };

export const CursorEventSchema = z.discriminatedUnion('hook_event_name', [
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
export type CursorEvent = z.infer<typeof CursorEventSchema>;
