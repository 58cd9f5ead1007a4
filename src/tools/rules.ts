// svc_rules: the read gate's file and folder rules. An owner lists, adds and removes the
// organization's rules (operations of the core); anyone working on this computer may test a path
// or have a decision explained, under every level at once (built-in, organization, this
// computer's rule files), as the hook would decide it.
import { z } from 'zod';
import { ops } from '../backend/operations/index.ts';
import { AddedRules, GateRule, RemovedRule, RuleIdParam, RuleList } from '../backend/operations/rules.ts';
import { ACTIONS } from '../gate/rules.ts';
import { OUTCOMES } from '../gate/engine.ts';
import { cwdField } from './gate.ts';
import { defineTool, type ToolDeps } from './registry.ts';
import { ownerOf } from './credentials.ts';
import { ServiceError } from '../backend/errors.ts';
import { RulesUnreadable } from '../gate/local.ts';
import { GateUnavailable } from '../gate/check.ts';

const Input = z
  .object({
    action: z
      .enum(['list', 'add', 'remove', 'test', 'explain'])
      .describe(
        'list: every rule in force here (built-in, organization, this computer\u2019s files), and with an owner key the organization rules by their ids; add: add `rules`; remove: remove `rule_id`; test: the decision for `path`; explain: the decision for `path` and every rule that covers it',
      ),
    rules: z
      .array(GateRule)
      .min(1)
      .max(100)
      .optional()
      .describe('for add: rules in the format of docs/RULES.md'),
    rule_id: RuleIdParam.shape.rule_id.optional().describe('for remove: the id `list` shows'),
    path: z.string().min(1).max(4096).optional().describe('for test and explain: a file or folder'),
    for: z.enum(ACTIONS).optional().describe('for test and explain: the action to decide (default read)'),
    agent: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('for test and explain: decide as this agent handle'),
    cwd: cwdField(
      "for test and explain: where relative paths start and the project is found (default: the server's folder)",
    ),
  })
  .strict();

const DecisionView = z.object({
  outcome: z.enum(OUTCOMES),
  action: z.enum(ACTIONS),
  rule: z
    .object({ id: z.string(), level: z.string(), effect: z.string(), reason: z.string().nullable() })
    .nullable(),
  path: z.string().nullable(),
  explanation: z.string(),
  to_change: z.string(),
  /** For `limited`: the uses a day that would be left after one more (a test or explain records none). */
  remaining: z.number().int().optional(),
});

const Output = z.object({
  action: z.enum(['list', 'add', 'remove', 'test', 'explain']),
  /** For list: every rule the gate applies here, at every level. */
  in_force: z
    .array(
      z.object({
        id: z.string(),
        level: z.string(),
        effect: z.string(),
        paths: z.array(z.string()),
        // What decides a rule's meaning beyond its paths, when it has it.
        actions: z.array(z.string()).optional(),
        limit_per_day: z.number().int().optional(),
        who: z.array(z.string()).optional(),
        project: z.string().optional(),
        reason: z.string().nullable(),
      }),
    )
    .optional(),
  rules: RuleList.shape.rules.optional(),
  count: z.number().int().optional(),
  rule_id: z.string().optional(),
  receipt_id: z.string().optional(),
  decision: DecisionView.optional(),
  covering: z
    .array(
      z.object({
        id: z.string(),
        level: z.string(),
        effect: z.string(),
        reason: z.string().nullable(),
        file: z.string().nullable(),
      }),
    )
    .optional(),
  refused: z.array(z.object({ id: z.string(), message: z.string() })).optional(),
  project_root: z.string().optional(),
  next: z.string(),
});

type In = z.infer<typeof Input>;
type Out = z.infer<typeof Output>;

function need<K extends keyof In>(input: In, key: K, action: string): NonNullable<In[K]> {
  const value = input[key];
  if (value === undefined) {
    throw new ServiceError('invalid_request', `svc_rules ${action} needs \`${String(key)}\``, { field: key });
  }
  return value as NonNullable<In[K]>;
}

function gateOf(deps: ToolDeps) {
  if (!deps.gate) {
    throw new ServiceError(
      'invalid_request',
      'this server has no gate of its own: test and explain run in `svc mcp`',
    );
  }
  return deps.gate;
}

async function run(input: In, deps: ToolDeps): Promise<{ text: string; structured: Out }> {
  switch (input.action) {
    case 'list': {
      // What holds here, at every level, as `svc rules list` shows it: the organization's rules
      // alone would say nothing protects a project whose own file does. An owner key adds the
      // organization's rules as stored, with the ids `remove` takes.
      const here = deps.gate ? await deps.gate.list({ cwd: input.cwd ?? process.cwd() }) : undefined;
      const org: z.infer<typeof RuleList> | undefined =
        deps.ownerBearer || !here ? await deps.invoker.invoke(ops.listRules, ownerOf(deps), {}) : undefined;
      const inForce = (here?.rules ?? []).map((r) => ({
        id: r.id,
        level: r.level,
        effect: r.effect,
        paths: r.paths,
        ...(r.actions ? { actions: r.actions } : {}),
        ...(r.limit_per_day !== undefined ? { limit_per_day: r.limit_per_day } : {}),
        ...(r.who ? { who: r.who } : {}),
        ...(r.project ? { project: r.project } : {}),
        reason: r.reason ?? null,
      }));
      const lines = here
        ? inForce.map(
            (r) =>
              `${r.id} [${r.level}] ${r.effect} ${r.paths.join(', ')}${r.reason ? ` (${r.reason})` : ''}`,
          )
        : (org?.rules ?? []).map(
            (r) => `${r.rule_id}: ${r.effect} ${r.paths.join(', ')}${r.reason ? ` (${r.reason})` : ''}`,
          );
      return {
        text: lines.length ? lines.join('\n') : 'No rules hold here.',
        structured: {
          action: 'list',
          ...(here ? { in_force: inForce, refused: here.refused, project_root: here.project_root } : {}),
          ...(org ? { rules: org.rules } : {}),
          count: here ? inForce.length : (org?.count ?? 0),
          next: 'test a path with action "test"; an owner adds organization rules with action "add"',
        },
      };
    }
    case 'add': {
      const added: z.infer<typeof AddedRules> = await deps.invoker.invoke(ops.addRules, ownerOf(deps), {
        rules: need(input, 'rules', 'add'),
      });
      return {
        text: `Added ${added.count} rule(s): ${added.rules.map((r) => r.rule_id).join(', ')}. Receipt: ${added.receipt_id}`,
        structured: {
          action: 'add',
          rules: added.rules,
          count: added.count,
          receipt_id: added.receipt_id,
          next: 'they hold at once for every agent on the organization\u2019s computers; check one with action "test"',
        },
      };
    }
    case 'remove': {
      const removed: z.infer<typeof RemovedRule> = await deps.invoker.invoke(ops.removeRule, ownerOf(deps), {
        rule_id: need(input, 'rule_id', 'remove'),
      });
      return {
        text: `Removed ${removed.rule_id}. Receipt: ${removed.receipt_id}`,
        structured: {
          action: 'remove',
          rule_id: removed.rule_id,
          receipt_id: removed.receipt_id,
          next: 'list what remains with action "list"',
        },
      };
    }
    case 'test':
    case 'explain': {
      const path = need(input, 'path', input.action);
      const explained = await gateOf(deps).explain(path, input.for ?? 'read', {
        cwd: input.cwd ?? process.cwd(),
        agent: input.agent,
        client: deps.client,
      });
      const { charges: _charges, ...decision } = explained.decision;
      const structured: Out = {
        action: input.action,
        decision,
        project_root: explained.project_root,
        next: decision.to_change,
        ...(input.action === 'explain' ? { covering: explained.covering, refused: explained.refused } : {}),
      };
      const lines = [`${decision.outcome}: ${decision.explanation}`, `To change it: ${decision.to_change}`];
      if (input.action === 'explain') {
        for (const c of explained.covering)
          lines.push(`- ${c.id} (${c.level}): ${c.effect}${c.reason ? `, ${c.reason}` : ''}`);
        for (const r of explained.refused) lines.push(`refused: ${r.message}`);
      }
      return { text: lines.join('\n'), structured };
    }
  }
}

export const svcRules = defineTool({
  name: 'svc_rules',
  group: 'govern',
  title: 'File and folder rules',
  description:
    'The read gate\u2019s file and folder rules, which decide every read, search, run and write by an agent (not allowed, ask the person, clean copy only, up to N a day, allowed). action "test" with a path says what the gate decides for it and what would change that; "explain" also lists every rule that covers it. An organization owner lists, adds and removes the organization\u2019s rules (list, add, remove); rules only tighten: one that would loosen a rule above it is refused. Before reading a file you are unsure of, test it.',
  credential: 'none',
  inputSchema: Input,
  outputSchema: Output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    try {
      return await run(input, deps);
    } catch (error) {
      // Rule files that cannot be read are the owner's to fix: said as the answer, with the file.
      if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
        throw new ServiceError('invalid_request', error.message);
      }
      throw error;
    }
  },
});
