// Each client's event checked two ways: without zod (what a hook uses at start) and with the zod
// schema (what says why an event is refused). They must agree on every input, or a hook would act
// on an event its schema refuses; both run on generated events near each field's limits.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ClaudeEventSchema } from '../../src/hooks/claude-event.ts';
import { eventOf as claudeEventOf } from '../../src/hooks/claude.ts';
import { CursorEventSchema } from '../../src/hooks/cursor-event.ts';
import { eventOf as cursorEventOf } from '../../src/hooks/cursor.ts';
import { GeminiEventSchema } from '../../src/hooks/gemini-event.ts';
import { eventOf as geminiEventOf } from '../../src/hooks/gemini.ts';

const junk = fc.constantFrom(null, 0, true, '', 'x', [], ['x'], {}, { a: 1 });
/** A field of the right kind most of the time, else an odd value; now and then left out. */
const field = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: junk, weight: 1 });
const path = fc.constantFrom('/p', 'src/app.ts', '.env', '');

const claudeEvents = fc.record(
  {
    hook_event_name: field(fc.constantFrom('PreToolUse', 'PostToolUse')),
    cwd: field(path),
    tool_name: field(fc.constantFrom('Read', 'Bash', 'mcp__x__y', '')),
    tool_input: field(fc.dictionary(fc.constantFrom('file_path', 'command', 'path'), fc.jsonValue())),
    session_id: fc.string(),
  },
  { requiredKeys: ['hook_event_name', 'cwd', 'tool_name', 'tool_input'] },
);

const geminiEvents = fc.record(
  {
    hook_event_name: field(fc.constantFrom('BeforeTool', 'AfterTool')),
    cwd: field(path),
    tool_name: field(fc.constantFrom('read_file', 'run_shell_command', 'mcp_x_y', '')),
    tool_input: field(fc.dictionary(fc.constantFrom('file_path', 'command', 'dir_path'), fc.jsonValue())),
    mcp_context: field(fc.record({ server_name: field(fc.constantFrom('x', '')) }, { requiredKeys: [] })),
    timestamp: fc.string(),
  },
  { requiredKeys: ['hook_event_name', 'cwd', 'tool_name', 'tool_input'] },
);

const roots = { workspace_roots: field(fc.array(path, { maxLength: 2 })) };
const cursorEvents = fc.oneof(
  fc.record(
    { hook_event_name: field(fc.constant('beforeReadFile')), file_path: field(path), ...roots },
    { requiredKeys: ['hook_event_name', 'file_path'] },
  ),
  fc.record(
    {
      hook_event_name: field(fc.constant('beforeShellExecution')),
      command: field(fc.constantFrom('cat .env', '')),
      cwd: field(path),
      ...roots,
    },
    { requiredKeys: ['hook_event_name', 'command'] },
  ),
  fc.record(
    {
      hook_event_name: field(fc.constantFrom('beforeMCPExecution', 'afterFileEdit')),
      tool_name: field(fc.constantFrom('read_file', '')),
      tool_input: field(fc.oneof(fc.dictionary(fc.constantFrom('path', 'q'), fc.jsonValue()), fc.string())),
      ...roots,
    },
    { requiredKeys: ['hook_event_name', 'tool_name'] },
  ),
);

it.each([
  ['Claude Code', claudeEvents, claudeEventOf, ClaudeEventSchema],
  ['Cursor', cursorEvents, cursorEventOf, CursorEventSchema],
  ['Gemini CLI', geminiEvents, geminiEventOf, GeminiEventSchema],
] as const)('%s: the check without zod and the schema agree', (_client, events, quick, schema) => {
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.oneof({ arbitrary: events, weight: 9 }, { arbitrary: fc.jsonValue(), weight: 1 }),
      (generated) => {
        const event: unknown = JSON.parse(JSON.stringify(generated));
        const parsed = schema.safeParse(event);
        // The quick check hands on the event as it came; the schema's copy holds the same fields.
        expect(quick(event)).toEqual(parsed.success ? parsed.data : undefined);
        if (parsed.success) accepted++;
      },
    ),
    { numRuns: 2000 },
  );
  expect(accepted).toBeGreaterThan(200);
});
