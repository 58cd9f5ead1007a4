// svc_code_advise and svc_code_patch: an agent about to change code asks which rules cover the
// files it would touch and whether its change writes a credential, then submits the change as a
// patch the owner reviews; the owner lists, approves (the person confirms, then the files are
// written) or rejects it (docs/CODE.md).
import { join } from 'node:path';
import { z } from 'zod';
import { ops } from '../backend/operations/index.ts';
import {
  ApprovedPatch,
  PATCH_STATUSES,
  PatchIdParam,
  PatchList,
  PatchPathDecision,
  RejectedPatch,
  StoredPatch,
  SubmitPatchRequest,
  SubmittedPatch,
} from '../backend/operations/patches.ts';
import { lazily } from '../backend/operation.ts';
import { ServiceError } from '../backend/errors.ts';
import { OUTCOMES } from '../gate/engine.ts';
import { GateUnavailable } from '../gate/check.ts';
import { RulesUnreadable, projectRootOf } from '../gate/local.ts';
import { ACTIONS } from '../gate/rules.ts';
import { agentOf, ownerOf } from './credentials.ts';
import { requireGate, cwdField } from './gate.ts';
import { defineTool, noAnswer, type ToolDeps } from './registry.ts';
import { printable } from '../backend/printable.ts';

/** The diff and patch code loads with the first advice or patch, not with the server. */
const patchCode = lazily(async () => ({
  ...(await import('../backend/patches.ts')),
  pathOf: (await import('../backend/unified-diff.ts')).pathOf,
}));

function gateOf(deps: ToolDeps) {
  if (!deps.gate) {
    throw new ServiceError(
      'forbidden',
      'this server has no read gate of its own: svc_code_advise and svc_code_patch run in `svc mcp` on the computer that holds the code',
    );
  }
  return deps.gate;
}

/** Rule files that cannot be read are the owner's to fix: said as the answer, with the file. */
async function gateErrorsSaid<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
      throw new ServiceError('forbidden', `the read gate cannot decide: ${error.message}`);
    }
    throw error;
  }
}

const Covering = z.object({
  id: z.string(),
  level: z.string(),
  effect: z.string(),
  reason: z.string().nullable(),
});

const AdvisedPath = z.object({
  path: z.string(),
  action: z.enum(ACTIONS),
  outcome: z.enum(OUTCOMES),
  protected: z.boolean().describe('no change to it can be applied (not allowed, or clean copy only)'),
  rule: Covering.nullable(),
  covering: z.array(Covering),
  explanation: z.string(),
  to_change: z.string(),
});

const Credential = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  type: z.string(),
  rule: z.string(),
  confidence: z.number(),
  preview: z.string(),
});

const AdviseOutput = z.object({
  project_root: z.string(),
  paths: z.array(AdvisedPath),
  protected: z.array(z.string()),
  ask: z.array(z.string()),
  credentials: z.array(Credential),
  next: z.string(),
});

function adviseNext(out: Omit<z.infer<typeof AdviseOutput>, 'next'>, diff: boolean): string {
  const steps: string[] = [];
  const first = out.paths.find((p) => p.protected);
  if (first) {
    steps.push(
      `do not change ${out.protected.join(', ')}: a patch touching ${out.protected.length > 1 ? 'them' : 'it'} is refused. ${first.to_change}`,
    );
  }
  if (out.credentials.length > 0) {
    const where = out.credentials.map((c) => `${c.path}:${c.line} (${c.type})`).join(', ');
    steps.push(
      `take the credential out of ${where}: read it from the environment, or have the owner register the API with svc_connect_source and call it with svc_use`,
    );
  }
  if (!diff) {
    const [p] = out.paths;
    if (p && p.outcome === 'ask') steps.push('the person is asked before this is done');
    if (p && !first && p.outcome !== 'ask') steps.push(`go ahead: ${p.explanation}`);
    return steps.join('; then ');
  }
  if (!first) {
    steps.push(
      `submit it with svc_code_patch action "submit" (summary, diff)${out.ask.length ? `; the person is asked to approve writing ${out.ask.join(', ')}` : ''}; the owner reviews it before any file changes`,
    );
  }
  return steps.join('; then ');
}

export const svcCodeAdvise = defineTool({
  name: 'svc_code_advise',
  group: 'scoped-agent',
  title: 'Advise on a code change',
  description:
    'Before you change code: give a unified diff (or one path) and get, for each file it touches, the read gate\u2019s decision for writing it (reading, for a path), every rule that covers it, which files are protected (a patch touching them is refused), added lines that hold a credential (the scanner\u2019s secret rules: known providers\u2019 formats, private keys, secret-named assignments), shown masked, and the safe next step. Reads nothing from the files and records nothing. Then submit the change with svc_code_patch.',
  credential: 'none',
  inputSchema: z
    .object({
      diff: SubmitPatchRequest.shape.diff.optional(),
      path: z.string().min(1).max(4096).optional().describe('one file or folder, instead of a diff'),
      cwd: cwdField(
        "where the agent works; the project (the folder holding .git or .svc above it) is found from here, and a diff's paths are relative to that project (default: the server's folder)",
      ),
    })
    .strict(),
  outputSchema: AdviseOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (input, deps) =>
    gateErrorsSaid(async () => {
      if ((input.diff === undefined) === (input.path === undefined)) {
        throw new ServiceError('invalid_request', 'svc_code_advise takes a `diff` or a `path`, one of them');
      }
      const gate = gateOf(deps);
      const { BLOCKS_WRITE, credentialsAdded, filesOf, pathOf } = await patchCode();
      const cwd = input.cwd ?? process.cwd();
      const root = projectRootOf(cwd);
      const files = input.diff === undefined ? [] : filesOf(input.diff);
      const targets =
        input.diff === undefined
          ? [{ path: input.path!, at: input.path!, action: 'read' as const }]
          : files.map((f) => ({ path: pathOf(f), at: join(root, pathOf(f)), action: 'write' as const }));
      const paths = await Promise.all(
        targets.map(async ({ path, at, action }) => {
          const explained = await gate.explain(at, action, { cwd, client: deps.client });
          const { decision } = explained;
          return {
            path,
            action,
            outcome: decision.outcome,
            protected: BLOCKS_WRITE.has(decision.outcome),
            rule: decision.rule,
            covering: explained.covering.map(({ file: _file, ...c }) => c),
            explanation: decision.explanation,
            to_change: decision.to_change,
          };
        }),
      );
      const advice = {
        project_root: root,
        paths,
        protected: paths.filter((p) => p.protected).map((p) => p.path),
        ask: paths.filter((p) => p.outcome === 'ask').map((p) => p.path),
        credentials: await credentialsAdded(files),
      };
      const structured = { ...advice, next: adviseNext(advice, input.diff !== undefined) };
      const lines = paths.map(
        (p) =>
          `${p.path}: ${p.outcome} for ${p.action}${p.protected ? ' (protected)' : ''}${p.rule ? `, rule ${p.rule.id} (${p.rule.level})` : ''}`,
      );
      for (const c of advice.credentials) {
        lines.push(`credential: ${c.path}:${c.line}:${c.column} ${c.type} (${c.rule}) ${c.preview}`);
      }
      lines.push(`Next: ${structured.next}`);
      return { text: lines.join('\n'), structured };
    }),
});

const PatchInput = z
  .object({
    action: z
      .enum(['submit', 'list', 'approve', 'reject'])
      .describe(
        'submit (an agent): `summary` and `diff`, queued for the owner; list, approve, reject (the owner): queued patches, by `patch_id`',
      ),
    summary: SubmitPatchRequest.shape.summary.optional(),
    diff: SubmitPatchRequest.shape.diff.optional(),
    cwd: cwdField(
      "where the agent works; the project (the folder holding .git or .svc above it) is found from here, and a diff's paths are relative to that project (default: the server's folder)",
    ),
    patch_id: PatchIdParam.shape.patch_id
      .optional()
      .describe('for approve and reject: the id submit or list gave'),
    reason: z.string().min(1).max(2_000).optional().describe('for reject: why, for the agent and the record'),
    status: z
      .enum(PATCH_STATUSES)
      .optional()
      .describe('for list: only patches in this state (default queued)'),
  })
  .strict();

const PatchOutput = z.object({
  action: z.enum(['submit', 'list', 'approve', 'reject']),
  patch_id: z.string().optional(),
  status: z.enum(PATCH_STATUSES).optional(),
  paths: z.array(z.union([PatchPathDecision, z.string()])).optional(),
  patches: z.array(StoredPatch).optional(),
  count: z.number().int().optional(),
  receipt_id: z.string().optional(),
  gate_receipt_id: z.string().nullable().optional(),
  next: z.string(),
});

type PatchIn = z.infer<typeof PatchInput>;
type PatchOut = z.infer<typeof PatchOutput>;

function need<K extends keyof PatchIn>(input: PatchIn, key: K): NonNullable<PatchIn[K]> {
  const value = input[key];
  if (value === undefined) {
    throw new ServiceError('invalid_request', `svc_code_patch ${input.action} needs \`${String(key)}\``, {
      field: key,
    });
  }
  return value as NonNullable<PatchIn[K]>;
}

async function runPatch(input: PatchIn, deps: ToolDeps): Promise<{ text: string; structured: PatchOut }> {
  switch (input.action) {
    case 'submit': {
      const agent = agentOf(deps);
      const diff = need(input, 'diff');
      const summary = need(input, 'summary');
      gateOf(deps);
      const root = projectRootOf(input.cwd ?? process.cwd());
      const { filesOf, pathOf } = await patchCode();
      const files = filesOf(diff);
      const me = await deps.invoker.invoke(ops.whoami, agent, {});
      const handle = me.kind === 'agent' ? me.handle : undefined;
      // Writing is what the patch will do: the gate of this computer decides it now, counted and
      // recorded, and asks the person for an `ask` rule; the service decides again at submit and apply.
      const passed = await requireGate(
        deps,
        { kind: 'paths', action: 'write', paths: files.map((f) => join(root, pathOf(f))) },
        { cwd: root, agent: handle, client: deps.client },
      );
      const submitted: z.infer<typeof SubmittedPatch> = await deps.invoker.invoke(ops.submitPatch, agent, {
        summary,
        diff,
        project_root: root,
      });
      return {
        text: `Queued ${submitted.patch_id} (${submitted.paths.map((p) => p.path).join(', ')}) for the owner to review. Receipt: ${submitted.receipt_id}`,
        structured: {
          action: 'submit',
          patch_id: submitted.patch_id,
          status: submitted.status,
          paths: submitted.paths,
          receipt_id: submitted.receipt_id,
          gate_receipt_id: passed.receipt_id,
          next: 'the files change only when the owner approves it (svc_code_patch action "approve"); until then do not write them yourself',
        },
      };
    }
    case 'list': {
      const list: z.infer<typeof PatchList> = await deps.invoker.invoke(ops.listPatches, ownerOf(deps), {
        status: input.status ?? 'queued',
      });
      return {
        text: list.count
          ? list.patches
              .map(
                (p) =>
                  `${p.patch_id} [${p.status}] by ${p.handle}: ${p.summary}\n  ${p.project_root}: ${p.paths.join(', ')}\n${p.diff}`,
              )
              .join('\n')
          : `No ${input.status ?? 'queued'} patches.`,
        structured: {
          action: 'list',
          patches: list.patches,
          count: list.count,
          next: 'review each diff, then approve (the person confirms, the files are written) or reject it',
        },
      };
    }
    case 'approve': {
      const owner = ownerOf(deps);
      const patchId = need(input, 'patch_id');
      gateOf(deps);
      const queued: z.infer<typeof PatchList> = await deps.invoker.invoke(ops.listPatches, owner, {
        status: 'queued',
      });
      const patch = queued.patches.find((p) => p.patch_id === patchId);
      if (patch) {
        const passed = await requireGate(
          deps,
          { kind: 'paths', action: 'write', paths: patch.paths.map((p) => join(patch.project_root, p)) },
          { cwd: patch.project_root, agent: patch.handle, client: deps.client },
        );
        // An agent holding the owner's key could approve its own patch: the person says yes first.
        if (!passed.confirmed) {
          const answer = await deps.confirm(
            printable(
              `Apply patch ${patch.patch_id} by ${patch.handle} ("${patch.summary}") to ${patch.paths.join(', ')} in ${patch.project_root}?`,
            ),
          );
          if (answer === 'declined') {
            throw new ServiceError('forbidden', `the person declined: ${patch.patch_id} stays queued`);
          }
          if (answer !== 'accepted') {
            throw new ServiceError(
              'forbidden',
              `approving writes files, so the person confirms it, and ${noAnswer(answer)}: ${patch.patch_id} stays queued. The owner approves it with POST /api/v1/patches/${patch.patch_id}/approve and the organization key, or in a client with MCP form elicitation`,
            );
          }
        }
      }
      // An unknown or decided patch goes to the service, which refuses it with a receipt.
      const approved: z.infer<typeof ApprovedPatch> = await deps.invoker.invoke(ops.approvePatch, owner, {
        patch_id: patchId,
      });
      return {
        text: `Applied ${approved.patch_id} to ${approved.paths.join(', ')}. Receipt: ${approved.receipt_id}`,
        structured: {
          action: 'approve',
          patch_id: approved.patch_id,
          status: approved.status,
          paths: approved.paths,
          receipt_id: approved.receipt_id,
          next: 'the files are written; review them with your usual tools (git diff)',
        },
      };
    }
    case 'reject': {
      const rejected: z.infer<typeof RejectedPatch> = await deps.invoker.invoke(
        ops.rejectPatch,
        ownerOf(deps),
        {
          patch_id: need(input, 'patch_id'),
          ...(input.reason ? { reason: input.reason } : {}),
        },
      );
      return {
        text: `Rejected ${rejected.patch_id}; nothing was written. Receipt: ${rejected.receipt_id}`,
        structured: {
          action: 'reject',
          patch_id: rejected.patch_id,
          status: rejected.status,
          receipt_id: rejected.receipt_id,
          next: 'the agent may submit a new patch',
        },
      };
    }
  }
}

export const svcCodePatch = defineTool({
  name: 'svc_code_patch',
  group: 'scoped-agent',
  title: 'Propose a code change for review',
  description:
    'Propose a code change instead of writing files yourself: action "submit" with a unified diff (paths relative to the project) and a summary. The read gate checks writing every file it touches: a protected file is refused (ask svc_code_advise first), an `ask` rule asks the person. The patch is signed with a receipt and queued; files change only when the owner approves. The owner uses "list" (queued patches with their diffs), "approve" (the person confirms through the client\u2019s form; the gate decides again and the files are written, all or none) and "reject".',
  credential: 'none',
  inputSchema: PatchInput,
  outputSchema: PatchOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: (input, deps) => gateErrorsSaid(() => runPatch(input, deps)),
});
