// Codex's PreToolUse hook (docs/HOOKS.md). Codex sends Claude Code's event and reads Claude Code's
// answer, so this is the Claude format (src/hooks/claude.ts) with Codex's own file tool added,
// `apply_patch`, and one difference in the answer: Codex cannot ask (a hook that answers `ask` is
// logged as failed and the tool runs), so a question is refused, saying that a person must approve.
import { askOf as claudeAskOf, preToolUseFormat, type ClaudeEvent } from './claude.ts';
import type { ToolAsk } from './format.ts';

/** A file a patch in Codex's format adds, deletes, updates or moves another one to. */
const PATCH_FILE_LINE = /^\*\*\* (?:(?:Add|Delete|Update) File|Move to): *(.+?)\s*$/gm;

function askOf(event: ClaudeEvent): ToolAsk {
  if (event.tool_name !== 'apply_patch') return claudeAskOf(event);
  // Codex hands a patch to hooks as `command`, whatever form the model sent it in.
  const patch = typeof event.tool_input.command === 'string' ? event.tool_input.command : '';
  const paths = [...patch.matchAll(PATCH_FILE_LINE)].map((line) => line[1]!);
  return paths.length
    ? { kind: 'paths', action: 'write', paths }
    : { kind: 'ungated', why: 'the patch names no file' };
}

export const codex = preToolUseFormat({ client: 'codex', askOf, cannotAsk: 'Codex' });
