// Gemini CLI's BeforeTool event as a zod schema: the fields svc reads. The hook checks an event
// without zod (gemini.ts) and loads this only to say why an event is refused.
import { z } from 'zod';

/** The fields of a BeforeTool event svc reads; the rest (session, transcript, time) it leaves alone. */
export const GeminiEventSchema = z.looseObject({
  hook_event_name: z.literal('BeforeTool'),
  cwd: z.string().min(1),
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
  /** Sent for MCP tools: the server's name as configured. */
  mcp_context: z.looseObject({ server_name: z.string().optional() }).optional(),
});
export type GeminiEvent = z.infer<typeof GeminiEventSchema>;
