// The read gate before a tool touches a file: every svc tool that reads or writes a file of this
// computer calls `requireGate` first. Allowed (or within a daily limit) goes ahead; `ask` asks the
// person once through the client's form; anything else is a tool error naming the rule and the
// audit row the decision left. Without a gate of its own the server refuses: fail closed.
import type { RecordedDecision } from '../backend/gate-record.ts';
import { ServiceError } from '../backend/errors.ts';
import { GateUnavailable, type Asker, type GateAsk } from '../gate/check.ts';
import { RulesUnreadable } from '../gate/local.ts';
import type { ToolDeps } from './registry.ts';

export interface GatePassed extends RecordedDecision {
  /** The person approved through the client's form (an `ask` rule). */
  confirmed: boolean;
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
      : 'run a command';

/** Goes ahead only as the gate of this computer lets it; throws the tool error otherwise. */
export async function requireGate(deps: ToolDeps, ask: GateAsk, asker: Asker): Promise<GatePassed> {
  if (!deps.gate) {
    throw new ServiceError(
      'forbidden',
      'this server has no read gate of its own, so it touches no file: use the tool through `svc mcp` on the computer that holds the files',
    );
  }
  let passed: RecordedDecision;
  try {
    passed = await deps.gate.check(ask, asker);
  } catch (error) {
    // Rules that cannot be read are the owner's to fix; until then nothing is touched.
    if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
      throw new ServiceError(
        'forbidden',
        `the read gate cannot decide, so nothing was touched: ${error.message}`,
      );
    }
    throw error;
  }
  const { decision, receipt_id } = passed;
  const rule = decision.rule ? `rule ${decision.rule.id} (${decision.rule.level})` : 'no rule';
  const record = receipt_id ? `; audit record ${receipt_id}` : '';
  switch (decision.outcome) {
    case 'allowed':
    case 'limited':
      return { ...passed, confirmed: false };
    case 'ask': {
      const answer = await deps.confirm(
        `${rule} asks you before an agent may ${what(ask)}${decision.rule?.reason ? ` (${decision.rule.reason})` : ''}. Go ahead?`,
      );
      if (answer === 'accepted') return { ...passed, confirmed: true };
      if (answer === 'declined') {
        throw refusal(`the person declined: ${what(ask)} was not done. ${rule}${record}`, passed);
      }
      throw refusal(
        `${rule} asks the person before an agent may ${what(ask)}, and this client cannot show svc's confirmation form, so it was not done${record}. Do it yourself outside the agent, or use a client with MCP form elicitation; ${decision.to_change}`,
        passed,
      );
    }
    case 'clean_copy':
      throw refusal(
        `${rule} allows only a clean copy for ${what(ask)}, and clean copies come with the scanner, which is not built yet: nothing was touched${record}. ${decision.to_change}`,
        passed,
      );
    case 'denied':
      throw refusal(`${decision.explanation}${record}. To change it: ${decision.to_change}`, passed);
  }
  // An outcome this code does not know yet: fail closed.
  throw refusal(
    `the read gate answered ${String(decision.outcome)}, which svc's tools do not handle${record}`,
    passed,
  );
}
