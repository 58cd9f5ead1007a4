// Finding, for an agent: svc_scan_folder scans a folder or a file of this computer, svc_scan_feedback
// keeps a verdict on a finding, svc_plan turns the latest scan into rules and applies them. Every
// file is read only as the read gate lets this agent read it: a file a rule protects is not read
// and is counted as protected (its decision on the audit chain). Values never come back: a finding
// has a masked preview and a fingerprint.
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { heldQuestion, walkAsAsker, type AskingRules } from '../backend/gate-check.ts';
import type { ConfirmHeld } from '../backend/scan-files.ts';
import { printable } from '../backend/printable.ts';
import { cwdField } from './gate.ts';
import { svcCommand } from '../config/command.ts';
import { defineTool, noAnswer, personSaysYes, type Confirmation, type ToolDeps } from './registry.ts';
import { ownerOf } from './credentials.ts';
import { ops } from '../backend/operations/index.ts';
import { Feedback, FeedbackIdParam, PlanItemIds, ScanIdParam } from '../backend/operations/scans.ts';
import { VERDICTS } from '../backend/vocabulary.ts';
import type { Applied, Plan } from '../backend/scan-plan.ts';
import { projectRootOf } from '../gate/local.ts';
import { admitOne } from './lock.ts';

/**
 * The gate and the finder of the computer this server runs on; a server without them (over HTTP,
 * away from the files) reads no file and keeps no scan.
 */
export async function localFind(deps: ToolDeps, tool: string) {
  if (!deps.gate || !deps.find) {
    // Without a gate nothing here may read a file, and without a finder nothing is kept.
    throw new ServiceError(
      'forbidden',
      `this server has no read gate of its own, so it reads no file: run ${tool} through \`svc mcp\` on the computer that holds the files`,
    );
  }
  return { gate: deps.gate, find: await deps.find() };
}

/** Files a walk did not read, counted by reason, and the protected ones by name. */
export function skippedOf(skipped: readonly { file: string; reason: string }[]) {
  const counts: Record<string, number> = {};
  for (const s of skipped) counts[s.reason] = (counts[s.reason] ?? 0) + 1;
  return { counts, protectedFiles: skipped.filter((s) => s.reason === 'protected').map((s) => s.file) };
}

/** Findings listed at most in one answer: a model's context is not the place for thousands. */
export const SCAN_FINDINGS_SHOWN = 50;

/**
 * What the person answered about the files `ask` rules held in a walk, and how to read them
 * without the agent when they did not say yes.
 */
export interface HeldAnswer {
  files: number;
  answer: Confirmation;
  /** The command the person can run in a terminal instead (it asks there). */
  instead: string;
}

/** The one question about held files, through the client's form: `held` keeps the answer. */
export function confirmHeld(
  deps: Pick<ToolDeps, 'confirm'>,
  asking: AskingRules,
  reader: string,
  instead: string,
  held: { answer?: HeldAnswer },
): ConfirmHeld {
  return async (files) => {
    const answer = await deps.confirm(heldQuestion(files, asking, reader));
    held.answer = { files: files.length, answer, instead };
    return answer === 'accepted';
  };
}

/** Why files held for the person were not read, and what they can run instead; empty when they were. */
export function heldNotRead(held: HeldAnswer | undefined): string {
  if (!held || held.answer === 'accepted') return '';
  const why =
    held.answer === 'declined'
      ? 'the person declined, or a client that shows no forms in this mode declined for them, as `codex exec` does'
      : noAnswer(held.answer);
  return `; ${held.files} file(s) a rule asks the person about were not read (${why}): they can run \`${held.instead}\` in their own terminal, which asks them there`;
}

/** How many times each name comes, in the order first met. */
const countBy = (names: readonly string[]) => {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
};

/** What a scan's answer tells the model to do next: what it saw, what it did not, and the plan's call. */
function scanNext(
  total: number,
  shown: number,
  skipped: Record<string, number>,
  scanId: string,
  held: HeldAnswer | undefined,
  /** The path scanned, absolute: the command the person can run names it. */
  path: string,
): string {
  const unread = Object.entries(skipped)
    .map(([reason, n]) => `${n} ${reason.replaceAll('_', ' ')}`)
    .join(', ');
  const notRead = unread
    ? `; not read: ${unread}${skipped.protected ? ' (a protected file is not yours to read: svc_rules action "explain", for read or for search, names its rule)' : ''}${skipped.changed ? ' (a changed file was saved anew, moved or removed while the scan ran: scan again to read it)' : ''}${skipped.sealed ? ' (a sealed file is ciphertext until opened: svc_open gives it back, as the gate allows)' : ''}${heldNotRead(held)}`
    : '';
  if (total === 0) return `nothing found in what was read${notRead}`;
  const cut =
    shown < total
      ? `; ${shown} of ${total} shown, secrets first: scan a narrower path to list the rest (or the person runs \`${svcCommand('scan', path, '--json')}\`)`
      : '';
  return `review the findings with the person; svc_plan (action "show", scan_id "${scanId}") proposes rules, seals and vault moves for them; svc_scan_feedback marks a false positive by its fingerprint${cut}${notRead}`;
}

const Input = z
  .object({
    path: z.string().min(1).max(4096).describe('the folder or file to scan, absolute or relative to cwd'),
    cwd: cwdField("where a relative path starts and the project is found (default: the server's folder)"),
  })
  .strict();

const FindingView = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  category: z.enum(['secret', 'pii']),
  type: z.string(),
  rule: z.string(),
  confidence: z.number(),
  fingerprint: z.string(),
  preview: z.string(),
});

const Output = z.object({
  scan_id: z.string(),
  /** The folder findings' `file` is relative to: the folder scanned, or a file's folder. */
  root: z.string(),
  findings: z.array(FindingView),
  total_findings: z.number().int(),
  /** Every finding counted by its type, those not shown too. */
  by_type: z.record(z.string(), z.number().int()),
  files_scanned: z.number().int(),
  bytes_scanned: z.number().int(),
  /** Files not read, by reason: protected (the gate), binary, too_large, unreadable, changed (since the walk), sealed. */
  skipped: z.record(z.string(), z.number().int()),
  protected_files: z.array(z.string()),
  /** Findings left out because someone marked them false positive or accepted risk. */
  silenced: z.number().int(),
  next: z.string(),
});

export const svcScanFolder = defineTool({
  name: 'svc_scan_folder',
  group: 'find-lock',
  title: 'Scan a folder for secrets and personal data',
  description:
    "Scans a folder (or one file) on this computer for secrets (cloud, version control, chat, payment, AI, registry and database credentials, private keys, tokens, passwords in assignments) and personal data (emails, phone numbers, card numbers, IBANs, US SSNs, IP addresses, dates of birth, names in labelled fields). It honours .gitignore and .svcignore, skips binaries, and reads only the files the owner's rules let you read: protected files are counted, not read, and files a rule asks about are read after the person's yes (one form for them all). Values are never returned: each finding has a masked preview and a fingerprint. Use svc_rules to see the rules; protect what it finds before sharing the folder.",
  credential: 'none',
  inputSchema: Input,
  outputSchema: Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const { gate, find } = await localFind(deps, 'svc_scan_folder');
    const cwd = input.cwd ?? process.cwd();
    const asker = { cwd, client: deps.client };
    const path = resolve(cwd, input.path);
    // Files a rule asks about: the person is asked once, about them all, when the walk has ended.
    const held: { answer?: HeldAnswer } = {};
    // Files read under a daily limit use it up: the answer says how much is left.
    const limits = new Map<string, number>();
    const result = await walkAsAsker(
      gate,
      asker,
      ['allowed', 'limited'],
      (admit, asking) =>
        find.scan(path, {
          scannedBy: 'an agent, through svc_scan_folder',
          admit,
          confirm: confirmHeld(deps, asking, 'svc_scan_folder', svcCommand('scan', path), held),
          // The total once the walk has found every file: a client can then show how far it is.
          onProgress: ({ files, bytes, of }) =>
            void deps.progress(
              files,
              of.final ? of.files : undefined,
              `${files} files, ${(bytes / 1048576).toFixed(1)} MiB scanned`,
            ),
        }),
      // A scan is a search as well as a read: a rule that keeps a file from either keeps it out.
      ['search'],
      limits,
    );
    const { counts: skipped, protectedFiles } = skippedOf(result.skipped);
    // Secrets first: a list cut at SCAN_FINDINGS_SHOWN must not hide them behind a table of names.
    const ordered = [
      ...result.findings.filter((f) => f.category === 'secret'),
      ...result.findings.filter((f) => f.category !== 'secret'),
    ];
    const shown = ordered.slice(0, SCAN_FINDINGS_SHOWN);
    const silenced = result.silenced.false_positive + result.silenced.accepted_risk;
    const used = [...limits]
      .slice(0, 3)
      .map(([rule, left]) => `rule ${rule} has ${left} use(s) left today`)
      .join(', ');
    const next = `${scanNext(result.findings.length, shown.length, skipped, result.scan_id, held.answer, path)}${used ? `; each file read under a daily limit used it once: ${used}` : ''}`;
    const lines = shown.map(
      (f) => `${f.file}:${f.line}:${f.column} ${f.category} ${f.type} (${f.rule}) ${f.preview}`,
    );
    lines.push(
      `${result.findings.length} finding(s) in ${result.files_scanned} file(s)${protectedFiles.length ? `; ${protectedFiles.length} protected file(s) not read` : ''}${silenced ? `; ${silenced} silenced by feedback` : ''} (scan ${result.scan_id})`,
    );
    return {
      text: lines.join('\n'),
      structured: {
        scan_id: result.scan_id,
        root: result.root,
        findings: shown,
        total_findings: result.findings.length,
        by_type: countBy(result.findings.map((f) => f.type)),
        files_scanned: result.files_scanned,
        bytes_scanned: result.bytes_scanned,
        skipped,
        protected_files: protectedFiles.slice(0, 20),
        silenced,
        next,
      },
    };
  },
});

const FeedbackInput = z
  .object({
    action: z
      .enum(['mark', 'list', 'promote'])
      .describe(
        "mark: keep a verdict on the finding with `fingerprint`; list: the verdicts that hold in this project; promote: make the project's verdict `feedback_id` the organization's (owner key)",
      ),
    fingerprint: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'a fingerprint is 32 hex digits, as svc_scan_folder shows it')
      .optional()
      .describe('for mark: the finding, by its fingerprint'),
    verdict: z
      .enum(VERDICTS)
      .optional()
      .describe(
        'for mark: false_positive (not a secret or personal data), accepted_risk (real, kept on purpose), confirmed (real: keep reporting it)',
      ),
    reason: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('for mark: why, for whoever reads the verdict later'),
    feedback_id: FeedbackIdParam.shape.feedback_id
      .optional()
      .describe('for promote: the verdict, as list shows it'),
    confirmed: z
      .boolean()
      .optional()
      .describe(
        'for a false_positive or accepted_risk mark, when the client shows no confirmation forms: true only after the person said yes',
      ),
    cwd: cwdField("a folder of the project (default: the server's folder)"),
  })
  .strict();

const FeedbackOutput = z.object({
  action: z.enum(['mark', 'list', 'promote']),
  project: z.string().optional(),
  feedback: z.array(Feedback).optional(),
  receipt_id: z.string().optional(),
  next: z.string(),
});

type FeedbackIn = z.infer<typeof FeedbackInput>;

function needs<K extends keyof FeedbackIn>(input: FeedbackIn, key: K): NonNullable<FeedbackIn[K]> {
  const value = input[key];
  if (value === undefined) {
    throw new ServiceError('invalid_request', `svc_scan_feedback ${input.action} needs \`${String(key)}\``, {
      field: key,
    });
  }
  return value as NonNullable<FeedbackIn[K]>;
}

const verdictLine = (f: z.infer<typeof Feedback>) =>
  `${f.feedback_id} ${f.scope} ${f.verdict} ${f.type ?? ''} ${f.fingerprint}${f.reason ? ` (${f.reason})` : ''}, by ${f.decided_by} at ${f.decided_at}`;

export const svcScanFeedback = defineTool({
  name: 'svc_scan_feedback',
  group: 'find-lock',
  title: 'Say what a scan finding is',
  description:
    "Keeps a verdict on a finding of svc_scan_folder, by its fingerprint: false_positive or accepted_risk leave it out of later scans of this project; confirmed keeps it reported everywhere, whatever else says. Silencing a finding needs the person's yes (a confirmation form, or `confirmed: true` after asking them). list shows the verdicts that hold here; an organization owner can promote a project's verdict so every computer of the organization honours it. Each verdict is receipted.",
  credential: 'none',
  inputSchema: FeedbackInput,
  outputSchema: FeedbackOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    if (input.action === 'promote') {
      const promoted: z.infer<typeof Feedback> = await deps.invoker.invoke(
        ops.promoteScanFeedback,
        ownerOf(deps),
        {
          feedback_id: needs(input, 'feedback_id'),
        },
      );
      return {
        text: `Promoted: ${verdictLine(promoted)}. Receipt: ${promoted.receipt_id}`,
        structured: {
          action: 'promote' as const,
          feedback: [promoted],
          receipt_id: promoted.receipt_id,
          next: 'every computer of the organization honours it from its next scan',
        },
      };
    }
    const { find } = await localFind(deps, 'svc_scan_feedback');
    const project = projectRootOf(input.cwd ?? process.cwd());
    if (input.action === 'list') {
      const feedback = await find.feedback(project);
      return {
        text: feedback.length ? feedback.map(verdictLine).join('\n') : `No verdicts hold in ${project}.`,
        structured: {
          action: 'list' as const,
          project,
          feedback,
          next: feedback.length
            ? 'a new mark on the same fingerprint replaces the project\u2019s verdict'
            : 'mark a finding of svc_scan_folder by its fingerprint',
        },
      };
    }
    const fingerprint = needs(input, 'fingerprint').toLowerCase();
    const verdict = needs(input, 'verdict');
    // Checked before the person is asked: a yes to a fingerprint no scan reported would be wasted.
    const known = await find.known(project, fingerprint);
    if (!known) {
      throw new ServiceError(
        'not_found',
        `no kept scan of ${project} reported a finding with fingerprint ${fingerprint}: scan the project (svc_scan_folder) and copy the fingerprint from its findings`,
        { fingerprint },
      );
    }
    let decidedBy = 'an agent, through svc_scan_feedback';
    if (verdict !== 'confirmed') {
      // Silencing a finding hides it from every later scan: the person says yes, not the agent.
      const yes = await personSaysYes(
        deps,
        printable(
          `Mark the ${known.type ?? 'finding'} with fingerprint ${fingerprint} as ${verdict.replace('_', ' ')} in ${project}${input.reason ? ` (${input.reason})` : ''}? Later scans will leave it out.`,
        ),
        {
          needs: "silencing a finding needs the person's yes",
          nothing: 'the finding stays reported',
          confirmed: input.confirmed,
          instead: `The person can run \`${svcCommand('scan', 'feedback', 'mark', fingerprint, verdict, '--project', project, ...(input.reason ? ['--reason', input.reason] : []))}\` in a terminal.`,
        },
      );
      decidedBy = `the person, asked by an agent through svc_scan_feedback${yes === 'form' ? '' : ' (confirmed: true)'}`;
    }
    const entry = await find.mark({
      project,
      fingerprint,
      verdict,
      reason: input.reason,
      decided_by: decidedBy,
    });
    return {
      text: `Kept: ${verdictLine(entry)}. Receipt: ${entry.receipt_id}`,
      structured: {
        action: 'mark' as const,
        project,
        feedback: [entry],
        receipt_id: entry.receipt_id,
        next:
          verdict === 'confirmed'
            ? 'it stays reported in every scan; svc_plan proposes what to do about it'
            : 'later scans of this project leave it out; an owner can promote it to the organization (action promote)',
      },
    };
  },
});

const PlanItemView = z.object({
  id: z.string(),
  kind: z.enum(['rule', 'seal', 'vault']),
  path: z.string(),
  effect: z.enum(['deny', 'redact', 'ask']).optional(),
  line: z.number().int().optional(),
  type: z.string().optional(),
  name: z.string().optional(),
  reason: z.string(),
});

const PlanInput = z
  .object({
    action: z
      .enum(['show', 'apply'])
      .describe('show: the plan of the latest scan; apply: carry out its items (all of them, or `items`)'),
    items: PlanItemIds.optional().describe(
      'for apply: the item ids to apply, of any kind (default: every item: rules, seals and vault moves; with to "organization", every rule item, the only kind applied there)',
    ),
    scan_id: ScanIdParam.shape.scan_id
      .optional()
      .describe('the scan to plan from (default: the latest scan of the project)'),
    to: z
      .enum(['project', 'organization'])
      .optional()
      .describe("for apply: the project's rules file (default), or the organization's rules (owner key)"),
    confirmed: z
      .boolean()
      .optional()
      .describe(
        'for apply, when the client shows no confirmation forms: true only after the person said yes',
      ),
    cwd: cwdField("a folder of the project (default: the server's folder)"),
  })
  .strict();

const PlanOutput = z.object({
  action: z.enum(['show', 'apply']),
  scan_id: z.string(),
  project: z.string().optional(),
  items: z.array(PlanItemView).optional(),
  /** When `items` holds only the first PLAN_ITEMS_SHOWN. */
  total_items: z.number().int().optional(),
  applied: z.array(z.string()).optional(),
  rules_added: z.number().int().optional(),
  to: z.string().optional(),
  sealed: z.array(z.object({ path: z.string(), seal_id: z.string() })).optional(),
  not_sealed: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
  vaulted: z.array(z.object({ name: z.string(), path: z.string(), line: z.number().int() })).optional(),
  not_vaulted: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
  receipt_id: z.string().optional(),
  next: z.string(),
});

/** Plan items listed at most in one answer. */
const PLAN_ITEMS_SHOWN = 100;

/** What the person is asked to apply, an item a line (the first ten): ids alone say nothing to them. */
function pickedLines(plan: Plan, items: readonly string[] | undefined, to: string | undefined): string {
  const picked = items
    ? plan.items.filter((i) => items.includes(i.id))
    : plan.items.filter((i) => to !== 'organization' || i.kind === 'rule');
  const lines = picked.slice(0, 10).map(itemLine);
  return [...lines, ...(picked.length > 10 ? [`… and ${picked.length - 10} more`] : [])].join('\n');
}

/** After an apply: what holds now, and how to finish what was not done. */
function appliedNext(applied: Applied, project: string, rules: boolean): string {
  // Each with what the person can do about it in a terminal, where there is something to do.
  const undone = [
    ...applied.not_sealed.map((s) =>
      s.reason === 'already_sealed'
        ? `${s.path} was sealed already`
        : `${s.path} not sealed (${s.reason}): the person can run \`${svcCommand('protect', join(project, s.path))}\``,
    ),
    ...applied.not_vaulted.map((v) => `${v.name} not copied into the vault (${v.reason})`),
  ];
  const parts = [
    rules ? 'the rules hold from the next call (svc_rules action "test" shows a decision)' : '',
    applied.sealed.length ? 'sealed files open only through the gate (svc_open)' : '',
    applied.vaulted.length
      ? 'change the program to read each vaulted secret from its environment and run it with svc_run (`secrets`)'
      : '',
    undone.length ? `not done: ${undone.join('; ')}` : '',
  ].filter(Boolean);
  return parts.join('; ') || 'nothing changed';
}

const itemLine = (i: Plan['items'][number]) =>
  // A file's name may hold a line break of its own: a line of the person's question never does.
  printable(
    i.kind === 'rule'
      ? `${i.id} rule ${i.effect} ${i.path}: ${i.reason}`
      : i.kind === 'seal'
        ? `${i.id} seal ${i.path}: ${i.reason}`
        : `${i.id} vault ${i.name} from ${i.path}:${i.line}: ${i.reason}`,
  );

export const svcPlan = defineTool({
  name: 'svc_plan',
  group: 'find-lock',
  title: 'Plan a policy from a scan',
  description:
    'Turns the latest scan of this project (svc_scan_folder) into a reviewable policy, one item each with its reason: a read-gate rule for every file found (not allowed for files made to hold secrets, clean copy only for files with secrets or personal data, ask first for weak findings), files to seal, and secrets to move into the vault. Show it to the person; apply (after their yes) carries out the items given in `items`, or without `items` every item of the plan: rules go to the project\u2019s rules file, files are sealed in place, secrets are copied into the vault. With to "organization" (owner key) only rule items apply, to the organization\u2019s rules. Receipted.',
  credential: 'none',
  inputSchema: PlanInput,
  outputSchema: PlanOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const { find } = await localFind(deps, 'svc_plan');
    const project = projectRootOf(input.cwd ?? process.cwd());
    const plan = await find.plan(input.scan_id ? { scan_id: input.scan_id } : { project });
    if (input.action === 'show') {
      const items = plan.items.slice(0, PLAN_ITEMS_SHOWN).map(({ id, kind, path, reason, ...rest }) => ({
        id,
        kind,
        path,
        reason,
        ...('effect' in rest ? { effect: rest.effect } : {}),
        ...('name' in rest ? { name: rest.name, line: rest.line, type: rest.type } : {}),
      }));
      return {
        text: [
          `Plan of scan ${plan.scan_id} (${plan.scanned_at}) for ${plan.project}:`,
          ...plan.items.slice(0, PLAN_ITEMS_SHOWN).map(itemLine),
          ...(plan.items.length > PLAN_ITEMS_SHOWN
            ? [
                `… and ${plan.items.length - PLAN_ITEMS_SHOWN} more (${svcCommand('plan', plan.project, '--scan', plan.scan_id)} lists them all)`,
              ]
            : []),
          ...plan.notes,
        ].join('\n'),
        structured: {
          action: 'show' as const,
          scan_id: plan.scan_id,
          project: plan.project,
          items,
          ...(plan.items.length > items.length ? { total_items: plan.items.length } : {}),
          next: items.length
            ? `${plan.items.length > items.length ? `${items.length} of ${plan.items.length} items shown; the person can list them all with \`${svcCommand('plan', plan.project, '--scan', plan.scan_id)}\`. ` : ''}Show the items to the person, then apply with action "apply" and this \`scan_id\` (a later scan numbers its items anew): give \`items\` with the ids they pick, since without \`items\` every item is applied (rules written, files sealed, secrets copied into the vault)${plan.notes.length ? `. ${plan.notes.join(' ')}` : ''}`
            : `scan ${plan.scan_id}${input.scan_id ? '' : ', the latest of this project,'} found nothing to plan${input.scan_id ? '' : ': give the scan_id of another scan (svc_scan_folder answers with one)'}`,
        },
      };
    }
    // Checked before the person is asked: a yes to what cannot be applied would be wasted.
    if (plan.items.length === 0) {
      throw new ServiceError(
        'invalid_request',
        `scan ${plan.scan_id} found nothing to plan, so there is nothing to apply: give the scan_id of another scan`,
      );
    }
    const unknown = [...new Set(input.items)].filter((id) => !plan.items.some((i) => i.id === id));
    if (unknown.length > 0) {
      throw new ServiceError(
        'invalid_request',
        `the plan of ${plan.scan_id} has no item ${unknown.join(', ')}: show the plan (action "show") for its items`,
        { items: unknown },
      );
    }
    const owner = input.to === 'organization' ? ownerOf(deps) : undefined;
    const notRules = (input.items ?? []).filter((id) => plan.items.find((i) => i.id === id)!.kind !== 'rule');
    if (owner !== undefined && notRules.length > 0) {
      throw new ServiceError(
        'invalid_request',
        `only rule items go to the organization; ${notRules.join(', ')} ${notRules.length === 1 ? 'is' : 'are'} applied to the project, on the computer that holds the file and the vault: apply ${notRules.length === 1 ? 'it' : 'them'} without to "organization"`,
        { items: notRules },
      );
    }
    const kinds = new Set(
      (input.items ?? plan.items.map((i) => i.id)).map((id) => plan.items.find((i) => i.id === id)!.kind),
    );
    await personSaysYes(
      deps,
      `${printable(`Apply ${input.items ? `items ${input.items.join(', ')}` : input.to === 'organization' ? 'every rule' : 'every item'} of the plan of ${plan.scan_id} (${input.to === 'organization' ? 'rules to the organization' : [kinds.has('rule') && `rules to ${plan.project}/.svc/rules.json`, kinds.has('seal') && 'files sealed in place', kinds.has('vault') && 'secrets copied into the vault'].filter(Boolean).join(', ')})?`)}\n${pickedLines(plan, input.items, input.to)}`,
      {
        needs: "applying a plan changes what agents may read, so it needs the person's yes",
        nothing: 'nothing was applied',
        confirmed: input.confirmed,
        // This plan, by its scan: a later scan would number other items.
        instead: `The person can run \`${svcCommand('plan', 'apply', plan.project, '--scan', plan.scan_id, ...(input.items ? ['--items', input.items.join(',')] : []), ...(input.to === 'organization' ? ['--to', 'organization'] : []))}\` in a terminal.`,
      },
    );
    const picked = { scan_id: plan.scan_id, items: input.items };
    const applied =
      owner !== undefined
        ? await deps.invoker.invoke(ops.applyScanPlan, owner, picked)
        : await find.applyToProject({
            ...picked,
            applied_by: 'the person, asked by an agent through svc_plan',
            // Sealing is a write of the file: only what the gate lets this agent write at once.
            admitSeal: (path) => admitOne(deps, 'write', path, input.cwd ?? process.cwd()),
            // Copying a secret into the vault reads it: only from a file the agent may read.
            admitRead: async (path) =>
              (await admitOne(deps, 'read', path, input.cwd ?? process.cwd())).allowed,
          });
    return {
      text: `Applied ${applied.applied.join(', ')}: ${applied.rules_added} rule(s) added to ${applied.to}${applied.sealed.length ? `; sealed ${applied.sealed.map((s) => s.path).join(', ')}` : ''}${applied.not_sealed.length ? `; not sealed: ${applied.not_sealed.map((s) => `${s.path} (${s.reason})`).join(', ')}` : ''}${applied.vaulted.length ? `; into the vault: ${applied.vaulted.map((v) => v.name).join(', ')}` : ''}${applied.not_vaulted.length ? `; not into the vault: ${applied.not_vaulted.map((v) => `${v.name} (${v.reason})`).join(', ')}` : ''}. Receipt: ${applied.receipt_id}`,
      structured: {
        action: 'apply' as const,
        scan_id: applied.scan_id,
        applied: applied.applied,
        rules_added: applied.rules_added,
        to: applied.to,
        sealed: applied.sealed,
        not_sealed: applied.not_sealed,
        vaulted: applied.vaulted,
        not_vaulted: applied.not_vaulted,
        receipt_id: applied.receipt_id,
        next: appliedNext(applied, plan.project, kinds.has('rule')),
      },
    };
  },
});
