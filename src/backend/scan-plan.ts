// The plan (docs/SCAN.md#the-plan): from a project's latest scan, a reviewable policy, one item
// per thing to do, each with its reason: a read-gate rule for each file found (not allowed, clean
// copy only, or ask first, by what the file holds), files to seal, and secrets to move into the
// vault. Applying it writes the chosen rules (to the project's rules file, or to the organization)
// and leaves a receipt naming what was applied.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { shellQuote } from '../config/command.ts';
import { writeFileAtomic } from '../config/paths.ts';
import { PROJECT_RULES_FILE } from '../gate/local.ts';
import { validRules, type Rule } from '../gate/rules.ts';
import { nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { ServiceError, type ServiceErrorCode } from './errors.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { addRules } from './rules.ts';
import type { FolderFinding } from './scan-folder.ts';
import { SCANS_KEPT_PER_PROJECT, storedScan, type StoredScan } from './scan-store.ts';
import type { ProtectOptions } from './seal-files.ts';

/** Below this, a finding is a question for the person rather than a reason to shut the file. */
export const STRONG_CONFIDENCE = 0.7;

/**
 * Files whose whole purpose is to hold secrets: sealed, and not read by agents at all. Anything
 * else (code, configuration, data) keeps working for the agent as a clean copy, and its secrets
 * move into the vault.
 */
const SECRET_FILE_NAMES = [
  /^\.env(\..+)?$/i,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|kdbx|asc|gpg)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)$/i,
  /^\.(netrc|pgpass|npmrc|pypirc|htpasswd|git-credentials)$/i,
  /^pgpass\.conf$/i,
  /^(credentials|secrets?)(\..+)?$/i,
  /service[-_]?account.*\.json$/i,
  /\.kubeconfig$|^kubeconfig$/i,
];

export const isSecretFile = (path: string) => SECRET_FILE_NAMES.some((p) => p.test(basename(path)));

export type PlanItem =
  | {
      id: string;
      kind: 'rule';
      effect: 'deny' | 'redact' | 'ask';
      /** The file, from the project root, as a rule anchors it (`./config/app.yaml`). */
      path: string;
      rule: Rule;
      reason: string;
    }
  | { id: string; kind: 'seal'; path: string; reason: string; command: string }
  | {
      id: string;
      kind: 'vault';
      path: string;
      line: number;
      type: string;
      fingerprint: string;
      /** A name for the secret in the vault, from its type. */
      name: string;
      reason: string;
    };

export interface Plan {
  scan_id: string;
  project: string;
  scanned_at: string;
  items: PlanItem[];
  /** What applying does, for each kind of item the plan holds. */
  notes: string[];
}

const counted = (findings: FolderFinding[]) => {
  const byType = new Map<string, number>();
  for (const f of findings) byType.set(f.type, (byType.get(f.type) ?? 0) + 1);
  return [...byType].map(([type, n]) => (n > 1 ? `${type} x${n}` : type)).join(', ');
};

/** The plan of one kept scan: items in the order of the files, rules first for each. */
export function planOf(scan: StoredScan): Plan {
  const byFile = new Map<string, FolderFinding[]>();
  for (const f of scan.findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const items: PlanItem[] = [];
  const next = { rule: 0, seal: 0, vault: 0 };
  const id = (kind: keyof typeof next) => `${kind[0]}${++next[kind]}`;
  const names = new Map<string, number>();
  const vaulted = new Set<string>();
  for (const [file, findings] of byFile) {
    const fromProject = relative(scan.project, join(scan.root, file)).split(sep).join('/');
    const path = `./${fromProject}`;
    // A rule's path is a pattern: a name's `[`, `]`, `*`, `?`, `\\` and trailing blanks are escaped,
    // so that `cust[1].csv` is that file, not `cust1.csv`.
    const pattern = `./${fromProject.replace(/[[\]*?\\]/g, '\\$&').replace(/ +$/, (blanks) => '\\ '.repeat(blanks.length))}`;
    const secrets = findings.filter((f) => f.category === 'secret' && f.confidence >= STRONG_CONFIDENCE);
    const personal = findings.filter((f) => f.category === 'pii' && f.confidence >= STRONG_CONFIDENCE);
    const rule = (effect: 'deny' | 'redact' | 'ask', reason: string, actions?: Rule['actions']) => {
      items.push({
        id: id('rule'),
        kind: 'rule',
        effect,
        path,
        rule: { effect, paths: [pattern], ...(actions ? { actions } : {}), reason },
        reason,
      });
    };
    if (secrets.length > 0 && isSecretFile(file)) {
      rule('deny', `holds secrets (${counted(secrets)}): agents may not use it at all`);
      items.push({
        id: id('seal'),
        kind: 'seal',
        path,
        reason: 'a file made to hold secrets: sealed, it opens only through the gate',
        // By its full path, as a shell reads it back: it works from any folder.
        command: `svc protect ${shellQuote(join(scan.root, file))}`,
      });
      continue;
    }
    if (secrets.length > 0 || personal.length > 0) {
      // Each kind named as what it is: an email is personal data, not a secret.
      const held = [
        ...(secrets.length ? [`secrets (${counted(secrets)})`] : []),
        ...(personal.length ? [`personal data (${counted(personal)})`] : []),
      ].join(' and ');
      rule('redact', `holds ${held}: agents read a clean copy`, ['read', 'search']);
    } else {
      rule('ask', `may hold secrets or personal data (${counted(findings)}): the person decides`, [
        'read',
        'search',
      ]);
    }
    // A secret in a log or a dump is a leak, not a setting a program reads: it is not moved into
    // the vault (the file's rule keeps it from agents; the secret itself wants replacing).
    if (LEAK_FILE.test(fromProject)) continue;
    for (const f of secrets) {
      // A password's hash is checked against, never handed to a program: its file's rule is all.
      if (f.type === 'PASSWORD_HASH') continue;
      if (vaulted.has(f.fingerprint)) continue;
      vaulted.add(f.fingerprint);
      const seen = (names.get(f.type) ?? 0) + 1;
      names.set(f.type, seen);
      items.push({
        id: id('vault'),
        kind: 'vault',
        path,
        line: f.line,
        type: f.type,
        fingerprint: f.fingerprint,
        name: seen > 1 ? `${f.type}_${seen}` : f.type,
        reason: `a ${f.type} written in ${fromProject}: keep it in the vault and have the program read it from there`,
      });
    }
  }
  return {
    scan_id: scan.scan_id,
    project: scan.project,
    scanned_at: scan.created_at,
    items,
    // What applying does, for the kinds of item this plan holds: an empty plan needs none.
    notes: (['rule', 'seal', 'vault'] as const)
      .filter((kind) => items.some((item) => item.kind === kind))
      .map((kind) => APPLY_NOTES[kind]),
  };
}

/** Files a program writes what happened into (logs, dumps, histories), not its settings. */
const LEAK_FILE =
  /\.(?:log|out|err|dump|sql|har|jsonl)(?:\.\d+)?$|(?:^|\/)(?:logs?|dumps?)\/|_history$|\.history$/i;

/** What applying an item of each kind does, said once under a plan that holds one. */
const APPLY_NOTES = {
  rule: 'rule items: applying adds them to the project rules file (.svc/rules.json), or to the organization with an owner key',
  // Said in full: a seal beside its deny rule leaves the file to nobody, the person included.
  seal: 'seal items: applying seals the file in place on this computer. Programs that read it then get ciphertext; it opens only through the gate (svc_open, or `svc open`), and the deny rule the plan gives the same file refuses that too, to everyone, until the person removes the rule',
  vault:
    'vault items: applying copies the secret into the vault under its name; then change the program to read it from its environment and run it with that secret (svc_run with `secrets`, or `svc run --secret NAME -- COMMAND`)',
} as const;

/** Why a plan cannot be applied as asked: the receipt of an owner's refused apply names `reason`. */
export class PlanRefused extends ServiceError {
  readonly reason: string;

  constructor(
    code: ServiceErrorCode,
    message: string,
    reason: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
    this.reason = reason;
  }
}

/** The plan of a kept scan, or of the project's latest one. */
export async function planFor(ctx: Context, which: { scan_id: string } | { project: string }): Promise<Plan> {
  const scan = await storedScan(ctx, which);
  if (!scan) {
    throw new PlanRefused(
      'not_found',
      'scan_id' in which
        ? `no kept scan ${which.scan_id}: the latest ${SCANS_KEPT_PER_PROJECT} scans of each project are kept; scan again`
        : `no scan of ${which.project} yet: scan it first (\`svc scan\` or svc_scan_folder)`,
      'unknown_scan',
    );
  }
  return planOf(scan);
}

export interface ApplyInput {
  scan_id: string;
  /** The item ids to apply; when absent, every item of the kinds the target applies. */
  items?: string[] | undefined;
}

export interface Applied {
  scan_id: string;
  applied: string[];
  rules_added: number;
  /** Where the rules went: the project's rules file, or the organization. */
  to: string;
  /** Files sealed in place by the plan's seal items, each with its seal. */
  sealed: { path: string; seal_id: string }[];
  /** Seal items not carried out, and why (a file already sealed, one the gate refused, …). */
  not_sealed: { path: string; reason: string }[];
  /** Secrets copied into the vault by the plan's vault items, by name (never the value). */
  vaulted: { name: string; path: string; line: number }[];
  /** Vault items not carried out, and why. */
  not_vaulted: { name: string; reason: string }[];
  receipt_id: string;
}

type RuleItem = Extract<PlanItem, { kind: 'rule' }>;
type SealItem = Extract<PlanItem, { kind: 'seal' }>;
type VaultItem = Extract<PlanItem, { kind: 'vault' }>;
type Kind = PlanItem['kind'];

/**
 * The items to apply: those picked (each must exist and be of a kind applied there), or every item
 * of those kinds. Rules apply anywhere; seals only on this computer, where the files and their keys
 * are; vault items not yet.
 */
function chosenItems(plan: Plan, picked: string[] | undefined, kinds: readonly Kind[]) {
  const appliable = (item: PlanItem) => kinds.includes(item.kind);
  if (!picked) return plan.items.filter(appliable);
  // An id given twice is one item: a model that repeats itself applies nothing twice.
  return [...new Set(picked)].map((id) => {
    const item = plan.items.find((i) => i.id === id);
    if (!item) {
      throw new PlanRefused(
        'invalid_request',
        `the plan of ${plan.scan_id} has no item ${id}: show the plan to see its items`,
        'unknown_item',
        { item: id },
      );
    }
    if (!appliable(item)) {
      throw new PlanRefused(
        'invalid_request',
        `item ${id} (${item.kind}) is applied to the project, on the computer that holds the file and the vault: apply it there without to organization (svc_plan, or \`svc plan apply --items ${id}\`)`,
        'not_appliable',
        { item: id },
      );
    }
    return item;
  });
}

/** The plan of a kept scan and the items chosen from it: at least one. */
async function chosenOf(ctx: Context, input: ApplyInput, kinds: readonly Kind[]) {
  const plan = await planFor(ctx, { scan_id: input.scan_id });
  const chosen = chosenItems(plan, input.items, kinds);
  if (chosen.length === 0) {
    throw new PlanRefused(
      'invalid_request',
      `the plan of ${plan.scan_id} has nothing to apply: the scan found nothing`,
      'nothing_to_apply',
    );
  }
  return {
    plan,
    rules: chosen.filter((i): i is RuleItem => i.kind === 'rule'),
    seals: chosen.filter((i): i is SealItem => i.kind === 'seal'),
    vault: chosen.filter((i): i is VaultItem => i.kind === 'vault'),
    chosen,
  };
}

/** Every rule of a project's rules file, checked: a file that is not valid is the owner's to fix first. */
function rulesFileOf(file: string): Rule[] {
  if (!existsSync(file)) return [];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    json = undefined;
  }
  const valid = validRules(json);
  if (!valid) {
    throw new ServiceError(
      'invalid_request',
      `${file} is not a valid rules file, so nothing was applied: fix it first (\`svc rules list\` says what is wrong)`,
    );
  }
  return valid;
}

export interface ProjectApplyInput extends ApplyInput {
  applied_by: string;
  /** The gate's decision on sealing a file, for an agent's call; absent for the person's own command. */
  admitSeal?: ProtectOptions['admit'];
  /** The gate's decision on reading a file for its secret, for an agent's call; absent likewise. */
  admitRead?: ((path: string) => Promise<boolean>) | undefined;
}

/**
 * Applies the chosen items on this computer: rules are added to the project's rules file
 * (`.svc/rules.json`, created if absent) after the rules it holds, a rule already there not twice,
 * the file written whole and renamed into place; files of seal items are sealed in place (each
 * with its own receipt). The plan's receipt names what was applied.
 */
export async function applyPlanToProject(ctx: Context, input: ProjectApplyInput): Promise<Applied> {
  const { plan, rules, seals, vault, chosen } = await chosenOf(ctx, input, ['rule', 'seal', 'vault']);
  const file = join(plan.project, PROJECT_RULES_FILE);
  const present = rulesFileOf(file);
  const known = new Set(present.map((r) => JSON.stringify(r)));
  // A rule already there, or twice among the chosen, is added once.
  const added = rules
    .map((i) => i.rule)
    .filter((r) => !known.has(JSON.stringify(r)) && Boolean(known.add(JSON.stringify(r))));
  // Secrets are copied into the vault before their files are sealed: afterwards they cannot be read.
  const vaulting = await intoVault(ctx, plan, vault, input);
  // Sealing next: a file the gate denies is denied either way, and a rule on a sealed file still holds.
  const sealing =
    seals.length > 0
      ? await (
          await import('./seal-files.ts')
        ).protectPaths(
          ctx,
          seals.map((i) => join(plan.project, i.path)),
          { by: input.applied_by, admit: input.admitSeal },
        )
      : { sealed: [], skipped: [], failed: [] };
  const fromProject = (path: string) => `./${relative(plan.project, path).split(sep).join('/')}`;
  const sealed = sealing.sealed.map((s) => ({ path: fromProject(s.path), seal_id: s.seal_id }));
  const notSealed = [
    ...sealing.skipped.map((s) => ({ path: fromProject(s.path), reason: s.reason as string })),
    ...sealing.failed.map((f) => ({ path: fromProject(f.path), reason: f.message })),
  ];
  // What was carried out: a seal or a vault item that did not happen is reported, not applied.
  const unsealed = new Set(notSealed.map((n) => n.path));
  const unvaulted = new Set(vaulting.not_vaulted.map((n) => n.name));
  const applied = chosen.filter(
    (i) => !(i.kind === 'seal' && unsealed.has(i.path)) && !(i.kind === 'vault' && unvaulted.has(i.name)),
  );
  return await ctx.store.write(async () => {
    const receipt = await ctx.chains.append('service', {
      kind: 'scan.plan.apply',
      org_id: null,
      signed_at: nowIso(ctx),
      body: {
        scan_id: plan.scan_id,
        project: plan.project,
        to: PROJECT_RULES_FILE,
        applied: applied.map((i) => ({ id: i.id, kind: i.kind, path: i.path })),
        rules_added: added.length,
        sealed,
        not_sealed: notSealed,
        vaulted: vaulting.vaulted,
        not_vaulted: vaulting.not_vaulted,
        applied_by: input.applied_by,
      },
    });
    // The file is written inside the write, after its receipt: a failed write rolls the receipt back.
    if (added.length > 0) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileAtomic(file, `${JSON.stringify([...present, ...added], null, 2)}\n`);
    }
    return {
      scan_id: plan.scan_id,
      applied: applied.map((i) => i.id),
      rules_added: added.length,
      to: file,
      sealed,
      not_sealed: notSealed,
      ...vaulting,
      receipt_id: receipt.receipt_id,
    };
  });
}

/**
 * Copies the secrets of vault items into the vault, each under its item's name: the value is found
 * again in its file by its fingerprint (the store keeps no value), read only as the gate lets the
 * caller read the file, and never overwrites a secret already named so. The file itself is left as
 * it is: changing the program to read the secret from its environment (`svc run --secret NAME`) is
 * the person's edit.
 */
async function intoVault(
  ctx: Context,
  plan: Plan,
  items: readonly VaultItem[],
  input: ProjectApplyInput,
): Promise<Pick<Applied, 'vaulted' | 'not_vaulted'>> {
  const vaulted: Applied['vaulted'] = [];
  const notVaulted: Applied['not_vaulted'] = [];
  if (items.length === 0) return { vaulted, not_vaulted: notVaulted };
  const [{ detector, describe }, { SECRET_RULES }, secrets, { fingerprinter, scanKey }] = await Promise.all([
    import('../scan/detect.ts'),
    import('../scan/secrets/index.ts'),
    import('./secrets.ts'),
    import('./scan-key.ts'),
  ]);
  const find = detector(SECRET_RULES);
  const fingerprint = fingerprinter(scanKey(ctx));
  const named = new Set((await secrets.listSecrets(ctx)).map((s) => s.name));
  for (const item of items) {
    const file = join(plan.project, item.path);
    if (named.has(item.name)) {
      notVaulted.push({ name: item.name, reason: 'the vault already holds a secret of that name' });
      continue;
    }
    if (input.admitRead && !(await input.admitRead(file))) {
      notVaulted.push({ name: item.name, reason: 'protected: the read gate does not let it be read' });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      notVaulted.push({ name: item.name, reason: 'the file cannot be read (moved, sealed or removed)' });
      continue;
    }
    const matches = find.matches(text, item.path);
    const at = describe(text, matches, fingerprint).findIndex((f) => f.fingerprint === item.fingerprint);
    if (at < 0) {
      notVaulted.push({ name: item.name, reason: 'the value is no longer in the file' });
      continue;
    }
    const match = matches[at]!;
    // A value found encoded (a Kubernetes Secret's base64) goes into the vault as what it encodes.
    const value = match.decoded ?? text.slice(match.start, match.end);
    await secrets.setSecret(ctx, item.name, value, { by: input.applied_by });
    named.add(item.name);
    vaulted.push({ name: item.name, path: item.path, line: item.line });
  }
  return { vaulted, not_vaulted: notVaulted };
}

/**
 * Adds the chosen rules to the organization, each holding in this project only (its `project`);
 * the organization's rule add is receipted as every add is, and so is the plan's application.
 */
export async function applyPlanToOrganization(
  ctx: Context,
  caller: OrgCaller,
  input: ApplyInput,
): Promise<Applied> {
  return await receiptRefusals(ctx, async () => {
    let chosenPlan;
    try {
      chosenPlan = await chosenOf(ctx, input, ['rule']);
    } catch (error) {
      if (!(error instanceof PlanRefused)) throw error;
      throw new Refusal(error.code, error.message, error.details ?? {}, {
        kind: 'scan.plan.apply.deny',
        org_id: caller.orgId,
        body: { ...actorOf(caller), scan_id: input.scan_id, reason: error.reason, ...error.details },
      });
    }
    const { plan, rules: chosen } = chosenPlan;
    // A rule the organization holds already (the plan applied again, a retried call) is not added twice.
    const held = new Set(
      (
        await ctx.store.all<{ rule: string }>('SELECT rule FROM gate_rules WHERE org_id = ?', caller.orgId)
      ).map((row) => row.rule),
    );
    const rules = chosen
      .map((i) => ({ ...i.rule, project: plan.project }))
      .filter((rule) => !held.has(JSON.stringify(rule)));
    const added = rules.length > 0 ? await addRules(ctx, caller, { rules }) : { count: 0, receipt_id: null };
    const receipt = await ctx.chains.append('service', {
      kind: 'scan.plan.apply',
      org_id: caller.orgId,
      signed_at: nowIso(ctx),
      body: {
        ...actorOf(caller),
        scan_id: plan.scan_id,
        project: plan.project,
        to: 'organization',
        applied: chosen.map((i) => ({ id: i.id, effect: i.effect, path: i.path })),
        rules_added: added.count,
        rules_receipt_id: added.receipt_id,
      },
    });
    return {
      scan_id: plan.scan_id,
      applied: chosen.map((i) => i.id),
      rules_added: added.count,
      to: 'organization',
      sealed: [],
      not_sealed: [],
      vaulted: [],
      not_vaulted: [],
      receipt_id: receipt.receipt_id,
    };
  });
}
