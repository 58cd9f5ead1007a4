// The read gate before a tool touches a file: every svc tool that reads or writes a file of this
// computer calls `requireGate` first. Allowed (or within a daily limit) goes ahead; `ask` asks the
// person once through the client's form; a clean copy only goes ahead for a tool that reads files
// and says it takes their clean text instead (`cleanCopy`); anything else is a tool error naming
// the rule and the audit row the decision left. Without a gate of its own the server refuses:
// fail closed.
import type { RecordedDecision } from '../backend/gate-record.ts';
import { ServiceError } from '../backend/errors.ts';
import { decideOrRefuse } from '../backend/gate-check.ts';
import type { Asker, GateAsk } from '../gate/check.ts';
import { z } from 'zod';
import { noAnswer, type ToolDeps } from './registry.ts';
import { printable } from '../backend/printable.ts';

export interface GatePassed extends RecordedDecision {
  /** The person approved through the client's form (an `ask` rule). */
  confirmed: boolean;
  /**
   * Only a clean copy may be read (a `redact` rule): the caller reads each file's clean text
   * (`cleanTextOf` in src/backend/redact.ts), never the file itself.
   */
  cleanOnly: boolean;
}

export interface GateOptions {
  /**
   * The caller reads the files' content and can take their clean text instead: a read the gate
   * allows only clean goes ahead, with `cleanOnly` set. Without it such a read is refused.
   */
  cleanCopy?: boolean;
  /**
   * The caller writes a clean copy: a write the gate allows only clean goes ahead, as what is
   * written is one (svc_redact's copy beside a file under a clean-copy-only rule).
   */
  writesCleanCopy?: boolean;
  /** The command the person can run in a terminal instead, where a rule asks and no yes came. */
  instead?: string;
}

function refusal(message: string, passed: RecordedDecision): ServiceError {
  const { decision, receipt_id } = passed;
  return new ServiceError('forbidden', message, {
    outcome: decision.outcome,
    rule_id: decision.rule?.id ?? null,
    path: decision.path,
    receipt_id,
  });
}

const what = (ask: GateAsk) =>
  ask.kind === 'paths'
    ? `${ask.action} ${ask.paths.join(', ')}`
    : ask.kind === 'folder'
      ? `search ${ask.folder}`
      : ask.kind === 'secret'
        ? `use the secret ${ask.name}`
        : 'run a command';

/** Goes ahead only as the gate of this computer lets it; throws the tool error otherwise. */
export async function requireGate(
  deps: ToolDeps,
  ask: GateAsk,
  asker: Asker,
  options: GateOptions = {},
): Promise<GatePassed> {
  if (!deps.gate) {
    throw new ServiceError(
      'forbidden',
      'this server has no read gate of its own, so it touches no file: use the tool through `svc mcp` on the computer that holds the files',
    );
  }
  const passed = await decideOrRefuse(deps.gate, ask, asker);
  const { decision, receipt_id } = passed;
  const rule = decision.rule ? `rule ${decision.rule.id} (${decision.rule.level})` : 'no rule';
  const record = receipt_id ? `; audit record ${receipt_id}` : '';
  switch (decision.outcome) {
    case 'allowed':
    case 'limited':
      return { ...passed, confirmed: false, cleanOnly: false };
    case 'ask': {
      const answer = await deps.confirm(
        printable(
          `${rule} asks you before an agent may ${what(ask)}${decision.rule?.reason ? ` (${decision.rule.reason})` : ''}. Go ahead?`,
        ),
      );
      if (answer === 'accepted') return { ...passed, confirmed: true, cleanOnly: false };
      if (answer === 'declined') {
        throw refusal(`the person declined: ${what(ask)} was not done. ${rule}${record}`, passed);
      }
      throw refusal(
        `${rule} asks the person before an agent may ${what(ask)}, and ${noAnswer(answer)}, so it was not done${record}. ${options.instead ? `The person can run \`${options.instead}\` in a terminal, where they are asked the same` : 'Do it yourself outside the agent, or use a client with MCP form elicitation'}; ${decision.to_change}`,
        passed,
      );
    }
    case 'clean_copy': {
      const reading = (ask.kind === 'paths' && ask.action === 'read') || ask.kind === 'folder';
      if (options.cleanCopy && reading) return { ...passed, confirmed: false, cleanOnly: true };
      const writing = ask.kind === 'paths' && ask.action === 'write';
      if (options.writesCleanCopy && writing) return { ...passed, confirmed: false, cleanOnly: true };
      const path = decision.path ?? 'it';
      throw refusal(
        reading
          ? `${rule} lets an agent have only a clean copy of ${path}, and this tool would read the file itself, so nothing was read${record}. Make a clean copy with svc_redact (path ${path}) and work on the copy; ${decision.to_change}`
          : `${rule} lets an agent have only a clean copy of ${path}, so ${what(ask)} is not done${record}. ${decision.to_change}`,
        passed,
      );
    }
    case 'denied':
      throw refusal(`${decision.explanation}${record}. To change it: ${decision.to_change}`, passed);
  }
  // An outcome this code does not know yet: fail closed.
  throw refusal(
    `the read gate answered ${String(decision.outcome)}, which svc's tools do not handle${record}`,
    passed,
  );
}

/**
 * The `cwd` argument of the tools that touch files: where relative paths start and the project
 * (the folder holding .git or .svc above it) is found, described for the tool at hand.
 */
export const cwdField = (
  description = "where relative paths start and the project is found (default: the server's folder)",
) => z.string().min(1).max(4096).optional().describe(description);
