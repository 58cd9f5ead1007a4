// secretlint as the scan benchmarks run it: its core's lintSource over one file's text with the
// recommended preset, the rule set its documentation recommends, in this process. That is the work
// its CLI does per file, without the CLI's config search and output formatting, so its figures here
// are, if anything, better than its CLI's.
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

const CONFIG = { rules: [{ id: recommended.meta.id, rule: recommended }] };

export interface SecretlintFinding {
  /** 1-based. */
  line: number;
  /** 1-based, as svc counts columns. */
  column: number;
  /** Just after its last character, 1-based. */
  endLine: number;
  endColumn: number;
  /** The secretlint rule, without its package scope: `secretlint-rule-github`. */
  rule: string;
  /** Its message id: `GITHUB_TOKEN`. */
  type: string;
}

export async function secretlint(filePath: string, content: string): Promise<SecretlintFinding[]> {
  const result = await lintSource({
    source: { filePath, content, contentType: 'text' },
    options: { config: CONFIG, maskSecrets: true },
  });
  return result.messages.map((m) => ({
    line: m.loc.start.line,
    column: m.loc.start.column + 1,
    endLine: m.loc.end.line,
    endColumn: m.loc.end.column + 1,
    rule: m.ruleId.replace('@secretlint/', ''),
    type: m.messageId ?? m.ruleId,
  }));
}
