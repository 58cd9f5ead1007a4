// The one check every caller of the gate makes, a hook or one of svc's own tools: what is asked
// (files, a search over a folder, a shell command), for whom, under which rules. It composes the
// rules of this computer for the asker's project and decides; counting and recording belong to
// the caller (the store is not the gate's).
import { dirname } from 'node:path';
import { Gate, type Decision, type UsesSoFar } from './engine.ts';
import {
  DYNAMIC_POLICIES,
  computerRules,
  commandReach,
  decideCommand,
  decideSearch,
  otherProjectRoots,
  projectsUnder,
  SEARCH_WALK_LIMIT,
  strictestOf,
  otherRuleFiles,
  projectRootOf,
  type DynamicPolicy,
  type RuleSet,
} from './local.ts';
import { pathForms } from './resolve.ts';
import { searchWalk, type SearchFilter } from './search-filter.ts';
import type { CommandReach } from './shell/reads.ts';
import type { Action, PlacedRule } from './rules.ts';

/**
 * How rules name a vault secret for `use_key` (docs/RULES.md): a fixed absolute path per name. It is
 * no file and is never resolved through the file system, so no symlink or working folder changes
 * what a rule on it covers; rules on folders of the home directory or a project never reach it.
 */
export const SECRET_KEY_ROOT = '/svc/secrets/';

export function secretKeyPath(name: string): string {
  return `${SECRET_KEY_ROOT}${name}`;
}

/**
 * What a call asks of the gate; `folder` marks a search over a folder (decided by its contents),
 * `secret` the use of a vault secret by a command (`use_key` on its key path).
 */
export type GateAsk =
  | { kind: 'paths'; action: Action; paths: string[] }
  | { kind: 'folder'; action: 'search'; folder: string; filter?: SearchFilter }
  | { kind: 'shell'; command: string }
  | { kind: 'secret'; name: string };

export interface Asker {
  /** Where the agent works: relative paths start here, and its project is found from here. */
  cwd: string;
  client?: string | undefined;
  agent?: string | undefined;
}

export interface GateSetting {
  dataDir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The organization rules in force (the store keeps them). */
  organization: readonly PlacedRule[];
}

/** A gate that could not be set up, for a reason the asker should read: the caller refuses. */
export class GateUnavailable extends Error {}

/** The policy for commands that reach paths known only when they run: SVC_GATE_DYNAMIC, `ask` by default. */
export function dynamicPolicy(env: NodeJS.ProcessEnv): DynamicPolicy {
  const dynamic = (env.SVC_GATE_DYNAMIC?.trim() || 'ask') as DynamicPolicy;
  if (!DYNAMIC_POLICIES.includes(dynamic)) {
    throw new GateUnavailable(`SVC_GATE_DYNAMIC must be one of ${DYNAMIC_POLICIES.join(', ')}`);
  }
  return dynamic;
}

/** A gate over the rules that hold for a call, and what its command reaches when it is one. */
export interface CompiledGate {
  gate: Gate;
  ruleSet: RuleSet;
  projectRoot: string;
  /** A shell ask's reach, read once here and decided with (decideWith). */
  reach?: CommandReach;
}

/**
 * The rules for the asker's project, and the gate over them; with `ask`, also the rules of other
 * projects whose files it touches. Rule files that cannot be read throw.
 */
export async function gateFor(
  setting: GateSetting,
  cwd: string,
  ask?: GateAsk,
  /** The shell ask's reach, when the caller read it already. */
  known?: CommandReach,
): Promise<CompiledGate> {
  const projectRoot = projectRootOf(cwd);
  const where = { cwd, home: setting.home };
  const reach = known ?? (ask?.kind === 'shell' ? commandReach(ask.command, where) : undefined);
  const touched = ask ? touchedFolders(ask, reach, where) : [];
  const others = otherRuleFiles(projectRoot, touched);
  const compiled = await gateOver(setting, cwd, others, otherProjectRoots(projectRoot, touched));
  return { ...compiled, ...(reach ? { reach } : {}) };
}

/**
 * The gate over the rules for the asker's project, the rule files of other projects (`others`),
 * and the rules for every project placed at the roots of `otherProjects` as well.
 */
export async function gateOver(
  setting: GateSetting,
  cwd: string,
  others: readonly { file: string; root: string }[],
  otherProjects: readonly string[],
): Promise<CompiledGate> {
  const projectRoot = projectRootOf(cwd);
  const ruleSet = await computerRules({ ...setting, projectRoot, others, otherProjects });
  return { gate: new Gate(ruleSet.rules, { projectRoot, home: setting.home }), ruleSet, projectRoot };
}

/**
 * The folders holding what `ask` touches (by their real paths): other projects' rules may cover
 * them. A search reaches every project inside its folder too: each one's root is among them.
 */
export function touchedFolders(
  ask: GateAsk,
  reach: CommandReach | undefined,
  where: { cwd: string; home: string },
): string[] {
  const searched =
    ask.kind === 'folder'
      ? [ask.folder]
      : ask.kind === 'shell'
        ? (reach?.touches ?? []).filter((t) => t.action === 'search').map((t) => t.path)
        : [];
  const paths =
    ask.kind === 'paths'
      ? ask.paths
      : ask.kind === 'folder'
        ? [`${ask.folder}/x`]
        : (reach?.touches ?? []).map((t) => (t.action === 'search' ? `${t.path}/x` : t.path));
  const folders = paths.flatMap((p) => pathForms(p, where).map((form) => dirname(form)));
  // One budget for every folder of one ask, as the search's own walk has: a line of many folders
  // is not many walks of 20,000 entries each.
  const budget = { left: SEARCH_WALK_LIMIT };
  for (const folder of new Set(searched.map((f) => pathForms(f, where).at(-1)!))) {
    for (const root of projectsUnder(folder, budget)) folders.push(root);
  }
  return [...new Set(folders)];
}

/** Decides what is asked, the most restrictive outcome over everything it reaches. */
export async function decideAsk(
  setting: GateSetting,
  ask: GateAsk,
  asker: Asker,
  now: Date,
  usesSoFar: UsesSoFar,
): Promise<Decision> {
  return decideWith({ ...(await gateFor(setting, asker.cwd, ask)), setting }, ask, asker, now, usesSoFar);
}

/** `decideAsk` over rules already compiled (a long-running process keeps them). */
export function decideWith(
  compiled: { gate: Gate; ruleSet: RuleSet; setting: GateSetting; reach?: CommandReach | undefined },
  ask: GateAsk,
  asker: Asker,
  now: Date,
  usesSoFar: UsesSoFar,
): Decision {
  const { gate, ruleSet, setting } = compiled;
  const dynamic = dynamicPolicy(setting.env);
  const { home } = setting;
  const base = { client: asker.client, agent: asker.agent, now };
  switch (ask.kind) {
    case 'folder': {
      // The folder as named and where it really is (a link, `x/../config`): rules on either hold.
      const forms = [
        ...new Set([
          pathForms(ask.folder, { cwd: asker.cwd, home })[0]!,
          pathForms(ask.folder, { cwd: asker.cwd, home }).at(-1)!,
        ]),
      ];
      const budget = { left: SEARCH_WALK_LIMIT };
      const decisions = forms.map((form) =>
        decideSearch(
          gate,
          { ...base, action: 'search' },
          form,
          usesSoFar,
          home,
          budget,
          searchWalk(form, ask.filter, setting.env),
        ),
      );
      return strictestOf(decisions);
    }
    case 'shell':
      return decideCommand(
        gate,
        base,
        compiled.reach ?? commandReach(ask.command, { cwd: asker.cwd, home }),
        {
          cwd: asker.cwd,
          home,
          dynamic,
          ownerRules: ruleSet.rules.some((r) => r.level !== 'builtin'),
          env: setting.env,
        },
        usesSoFar,
      );
    case 'secret':
      return gate.decide({ ...base, action: 'use_key', paths: [secretKeyPath(ask.name)] }, usesSoFar);
    case 'paths':
      return gate.decide(
        {
          ...base,
          action: ask.action,
          paths: ask.paths.flatMap((p) => pathForms(p, { cwd: asker.cwd, home })),
        },
        usesSoFar,
      );
  }
}
