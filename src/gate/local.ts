// The gate as a process on this computer sees it: the built-in rule, the project's
// `.svc/rules.json` and the file SVC_RULES_FILE names, and searches over folders decided as reads
// of the protected files inside them. Rules that cannot be read fail closed: the caller refuses.
import {
  existsSync,
  lstatSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  type Dirent,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { enableCompileCache } from '../config/compile-cache.ts';
import { builtinRules } from './builtin.ts';
import {
  Gate,
  loosenings,
  oneUseEach,
  type Charge,
  type Decision,
  type GateRequest,
  type UsesSoFar,
} from './engine.ts';
import { validRules, type PlacedRule } from './rules.ts';
import { pathForms, realPath } from './resolve.ts';
import { ShellSyntaxError } from './shell/parse.ts';
import { reachOf, type CommandReach } from './shell/reads.ts';
import { searchWalk, type SearchWalk } from './search-filter.ts';

const rank = { allowed: 0, limited: 1, clean_copy: 2, ask: 3, denied: 4 } as const;

/** A rule file that cannot be used: the gate cannot decide, so the caller must refuse. */
export class RulesUnreadable extends Error {}

/** Where a project's own rules live, relative to its root. */
export const PROJECT_RULES_FILE = '.svc/rules.json';

/** How many links to one folder a search walks it for, each naming its files its own way. */
const LINK_WAYS = 8;

/** Entries a search over a folder looks at, at most, before it is asked about instead. */
export const SEARCH_WALK_LIMIT = 20_000;

/** The project a path belongs to: the nearest folder up holding `.svc` or `.git`, else `cwd` itself. */
export function projectRootOf(cwd: string): string {
  // Links followed: a project reached through a symbolic link is the same project (its kept
  // scans, verdicts and plans are keyed by this path).
  const real = realPath(cwd);
  for (let at = real; ; at = dirname(at)) {
    if (existsSync(join(at, '.svc')) || existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return real;
  }
}

/**
 * The rule files that hold over paths outside the asker's project: those of the folders above each
 * of `folders` that exist and are not the asker's own (`projectRuleFiles(projectRoot)`). A file of
 * another project is protected by that project's rules, wherever the agent works.
 */
export function otherRuleFiles(
  projectRoot: string,
  folders: readonly string[],
): { file: string; root: string }[] {
  const own = new Set(projectRuleFiles(projectRoot).map((f) => f.file));
  const found = new Map<string, { file: string; root: string }>();
  const looked = new Set<string>();
  for (const folder of folders) {
    for (const candidate of projectRuleFiles(folder)) {
      // Folders above one already looked at were looked at with it.
      if (looked.has(candidate.root)) break;
      looked.add(candidate.root);
      if (!own.has(candidate.file) && existsSync(candidate.file)) found.set(candidate.file, candidate);
    }
  }
  return [...found.values()];
}

/**
 * The roots of the projects, other than the asker's, that hold `folders` or the asker's own project
 * (every folder up from each holding `.svc` or `.git`: a project inside another is in both, so an
 * agent's `mkdir sub/.git` does not take `sub` out of the outer one). The rules written for every
 * project (built-in, organization, SVC_RULES_FILE) hold in each of them as in the asker's own: an
 * organization rule `.env` protects another project's `.env` whatever folder the agent works in.
 */
export function otherProjectRoots(
  projectRoot: string,
  folders: readonly string[],
  /** Each folder looked at, and the project roots above it, kept by a caller that asks again. */
  roots: Map<string, readonly string[]> = new Map(),
): string[] {
  const found = new Set<string>();
  for (const folder of [...folders, projectRoot]) {
    for (const root of rootsOf(resolve(folder), roots)) if (root !== projectRoot) found.add(root);
  }
  return [...found];
}

/** The folders from `at` up (itself included) that hold `.svc` or `.git`, nearest first; noted in `roots`. */
function rootsOf(at: string, roots: Map<string, readonly string[]>): readonly string[] {
  const known = roots.get(at);
  if (known !== undefined) return known;
  const above = dirname(at) === at ? [] : rootsOf(dirname(at), roots);
  const list = existsSync(join(at, '.svc')) || existsSync(join(at, '.git')) ? [at, ...above] : above;
  roots.set(at, list);
  return list;
}

/**
 * The project roots inside `folder` (folders holding `.svc` or `.git`), found by a walk that looks
 * at no more entries than `budget` has left and follows linked folders once each: a search over a
 * parent of several projects reaches all their files, and each is decided under its own rules.
 */
export function projectsUnder(
  folder: string,
  /** Entries left to look at, shared by every folder of one ask. */
  budget: { left: number } = { left: SEARCH_WALK_LIMIT },
): string[] {
  const found: string[] = [];
  // Linked folders by where they lead, so each is walked once (a link may lead back up).
  const linked = new Set<string>();
  const pending = [folder];
  while (pending.length > 0 && budget.left > 0) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (dir !== folder && entries.some((e) => e.name === '.svc' || e.name === '.git')) found.push(dir);
    for (const entry of entries) {
      if (--budget.left < 0) break;
      if (entry.name === '.git') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isSymbolicLink()) {
        try {
          const real = realpathSync.native(path);
          if (!linked.has(real) && statSync(real).isDirectory()) {
            linked.add(real);
            pending.push(real);
          }
        } catch {
          // A link to nothing reaches nothing.
        }
      }
    }
  }
  return found;
}

/**
 * Where project rule files may be for a project: its own `.svc/rules.json` first, then that of
 * every folder above it, each with the root its paths are relative to. The ones above hold too, so
 * a project made inside another (an agent's `mkdir sub/.git`) does not leave the outer rules behind.
 */
export function projectRuleFiles(projectRoot: string): { file: string; root: string }[] {
  const files: { file: string; root: string }[] = [];
  for (let at = resolve(projectRoot); ; at = dirname(at)) {
    files.push({ file: join(at, PROJECT_RULES_FILE), root: at });
    if (dirname(at) === at) return files;
  }
}

async function readRuleFile(file: string, label: string, root?: string): Promise<PlacedRule[]> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new RulesUnreadable(`cannot read the rules in ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RulesUnreadable(
      `the rules in ${file} are not JSON: fix the file (docs/RULES.md shows the format)`,
    );
  }
  let rules = validRules(json);
  if (!rules) {
    // Refused: the schema says which rule and why (zod loads only here, off the hook's usual path).
    enableCompileCache();
    const { RuleListSchema } = await import('./rules-schema.ts');
    const parsed = RuleListSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new RulesUnreadable(
        `the rules in ${file} are not valid: rule ${issue.path.join('.') || '(the list)'}: ${issue.message}`,
      );
    }
    rules = parsed.data;
  }
  return rules.map((rule, index) => ({
    id: `${label}#${index + 1}`,
    level: 'computer',
    rule,
    file,
    ...(root ? { root } : {}),
  }));
}

/** A rule of this computer left out because it would loosen a rule above it, and which one. */
export interface RefusedRule {
  rule: PlacedRule;
  loosens: string;
  message: string;
}

export interface RuleSet {
  /** What the gate applies: built-in first, then the organization's, then this computer's. */
  rules: PlacedRule[];
  /** This computer's rules that would loosen a rule above them: in force, and always reported. */
  refused: RefusedRule[];
}

/**
 * The rules that hold on this computer for a project: the built-in rule, the organization rules
 * given (the store keeps them), the project's `.svc/rules.json` and the file SVC_RULES_FILE names.
 * A file rule that would loosen a rule above it is named in `refused` and stays in force
 * (evaluation takes the most restrictive outcome, so it opens nothing, and it still protects
 * where the rule above does not reach).
 */
export async function computerRules(options: {
  projectRoot: string;
  dataDir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  organization?: readonly PlacedRule[];
  /** Rule files of other projects that hold too (otherRuleFiles). */
  others?: readonly { file: string; root: string }[];
  /** Other projects whose files are touched (otherProjectRoots): the rules for every project hold there too. */
  otherProjects?: readonly string[];
}): Promise<RuleSet> {
  const named = options.env.SVC_RULES_FILE?.trim();
  const above = [
    ...builtinRules(options.dataDir, named ? resolve(named) : undefined),
    ...(options.organization ?? []),
  ];
  const files: PlacedRule[] = [];
  // The file's path names its rules, so two projects' rule 1 never share a daily count.
  for (const { file, root } of [...projectRuleFiles(options.projectRoot), ...(options.others ?? [])]) {
    if (existsSync(file)) files.push(...(await readRuleFile(file, file, root)));
  }
  // A file named on purpose and missing is an error, not "no rules".
  if (named) files.push(...(await readRuleFile(named, 'SVC_RULES_FILE')));
  const refused: RefusedRule[] = [];
  for (const placed of files) {
    const anchors = { projectRoot: placed.root ?? options.projectRoot, home: options.home };
    const loosened = loosenings(placed.rule, 'computer', above, anchors)[0];
    if (!loosened) continue;
    refused.push({
      rule: placed,
      loosens: loosened.rule.id,
      message: `${placed.id} (${placed.rule.effect} ${placed.rule.paths.join(', ')}) cannot loosen ${loosened.rule.id} (${loosened.effect} ${loosened.rule.rule.paths.join(', ')}): where both cover a path, the stricter holds; a rule of this computer may tighten the rules above it, never loosen them`,
    });
  }
  // Rules with no root of their own are anchored at the asker's project; each other project touched
  // gets them again, anchored at its root, under the same ids (one rule, one count: Gate.decide
  // takes a rule once).
  const everywhere = [...above, ...files].filter((placed) => placed.root === undefined);
  const elsewhere = (options.otherProjects ?? [])
    .filter((root) => root !== options.projectRoot)
    .flatMap((root) => everywhere.map((placed) => ({ ...placed, root })));
  // A rule that would loosen one above it stays in force, named in `refused`: a decision takes the
  // most restrictive outcome, so it opens nothing the rule above protects, and it still holds where
  // that rule does not reach (a `limit` on `config/` beside an organization `ask` on one file of it).
  return { rules: [...above, ...files, ...elsewhere], refused };
}

/**
 * A search over `folder` decided as a read of the files in it: walks the folder (not following
 * symlinked folders, but deciding on where each symlink leads) and answers the most restrictive
 * decision over what it finds. A folder too large to walk is decided as `ask`: the gate cannot
 * tell what the search would reach.
 */
export function decideSearch(
  gate: Gate,
  request: Omit<GateRequest, 'paths'>,
  folder: string,
  usesSoFar: UsesSoFar,
  home: string,
  /** Entries left to look at, shared by every search of one command: one budget for the whole line. */
  budget: { left: number } = { left: SEARCH_WALK_LIMIT },
  /** The files the search reads, when it is filtered (search-filter.ts); else every one. */
  walk?: SearchWalk,
): Decision {
  let worst = gate.decide({ ...request, paths: pathForms(folder, { cwd: folder, home }) }, usesSoFar);
  // A use of every limit rule the search reaches, once each: not only the one the worst file met.
  const charges: Charge[] = [];
  const charge = (decision: Decision) => charges.push(...decision.charges);
  charge(worst);
  // Each folder to walk, and the way to it through the link the walk followed, if one: a file
  // there is decided where it is and as the way there names it (`link/key.pem` under a project's
  // `*.pem`, the file itself outside the project).
  const pending: { dir: string; via?: string }[] = [{ dir: folder }];
  // A linked folder is walked where it leads, once for each link that leads there (`grep -R` and
  // `rg -L` follow links and name the files by each), up to LINK_WAYS of them (a link may lead
  // back up, and each time round is a new way in).
  const ways = new Map<string, number>();
  while (pending.length > 0 && worst.outcome !== 'denied') {
    const { dir, via } = pending.pop()!;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of entries) {
      if (--budget.left < 0) {
        return {
          ...worst,
          outcome: rank[worst.outcome] >= rank.ask ? worst.outcome : 'ask',
          explanation: `a ${request.action} over ${folder} reaches more than ${SEARCH_WALK_LIMIT} files and folders: the gate cannot tell whether it reaches protected files`,
          to_change: 'search a narrower folder',
          charges: [],
        };
      }
      const path = join(dir, name);
      const named = via === undefined ? undefined : join(via, name);
      const forms = named === undefined ? [path] : [path, named];
      let isDir = false;
      let leadsToDir = false;
      try {
        const stat = lstatSync(path);
        isDir = stat.isDirectory();
        if (stat.isSymbolicLink()) {
          const target = realpathSync.native(path);
          forms.push(target);
          leadsToDir = statSync(target).isDirectory();
          // Its entries are decided where they really are, and as the link names them.
          const walked = ways.get(target) ?? 0;
          if (leadsToDir && walked < LINK_WAYS) {
            ways.set(target, walked + 1);
            pending.push({ dir: target, via: named ?? path });
          }
        }
      } catch (error) {
        // Gone, or a link to nothing: there is nothing there to read either. A link the system
        // follows but cannot say where to (a real path past PATH_MAX, a loop) may reach anything.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          return {
            ...worst,
            outcome: rank[worst.outcome] >= rank.ask ? worst.outcome : 'ask',
            explanation: `a ${request.action} over ${folder} reaches ${path}, which cannot be resolved (${code ?? 'error'}): the gate cannot tell whether it leads to protected files`,
            to_change: 'search a folder without it',
            charges: [],
          };
        }
      }
      // A search through a link judges what it meets by the way the link names it.
      const judged = named ?? path;
      if (isDir && walk && !walk.enters(judged)) continue;
      // A filtered search reads files alone: a folder is decided by the files of it that it reads.
      if (!walk || (!isDir && !leadsToDir && walk.reads(judged))) {
        const decision = gate.decide({ ...request, paths: forms }, usesSoFar);
        charge(decision);
        if (rank[decision.outcome] > rank[worst.outcome]) worst = decision;
      }
      if (isDir) pending.push({ dir: path, ...(named === undefined ? {} : { via: named }) });
    }
  }
  return {
    ...worst,
    charges: worst.outcome === 'denied' || worst.outcome === 'ask' ? [] : oneUseEach(charges),
  };
}

/** The most restrictive of decisions on one ask (the first of equals), with every use they count, once each. */
export function strictestOf(decisions: readonly Decision[]): Decision {
  let worst = decisions[0]!;
  for (const d of decisions) if (rank[d.outcome] > rank[worst.outcome]) worst = d;
  if (worst.outcome === 'denied' || worst.outcome === 'ask') return { ...worst, charges: [] };
  return { ...worst, charges: oneUseEach(decisions.flatMap((d) => d.charges)) };
}

/** What a command line reaches (shell/reads.ts); one svc cannot parse reaches what only its run knows. */
export function commandReach(command: string, where: { cwd: string; home: string }): CommandReach {
  try {
    return reachOf(command, where);
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
    return { touches: [], dynamic: [`a command svc cannot read (${error.message})`] };
  }
}

/** What the gate does with a command that reaches paths known only when it runs (docs/HOOKS.md). */
export const DYNAMIC_POLICIES = ['ask', 'deny', 'allow'] as const;
export type DynamicPolicy = (typeof DYNAMIC_POLICIES)[number];

/**
 * A shell command decided as everything it reaches (shell/reads.ts): each file it reads, writes or
 * runs and each folder it searches, the most restrictive decision holding. A command that reaches
 * paths known only when it runs, or that cannot be parsed, follows `dynamic` while any rule
 * beyond the built-in one exists (with none, nothing of the owner's could be reached).
 */
export function decideCommand(
  gate: Gate,
  request: Omit<GateRequest, 'paths' | 'action'>,
  reach: CommandReach,
  options: {
    cwd: string;
    home: string;
    dynamic: DynamicPolicy;
    ownerRules: boolean;
    /** The environment the command runs in (a search's ripgrep reads its configuration from it). */
    env: NodeJS.ProcessEnv;
  },
  usesSoFar: UsesSoFar,
): Decision {
  const { touches, dynamic } = reach;
  let worst: Decision | undefined;
  const charges: Decision['charges'] = [];
  // However many folders a command searches, it looks at SEARCH_WALK_LIMIT entries in all, so that
  // no line can keep the hook past its client's time limit (a hook that times out does not block).
  const budget = { left: SEARCH_WALK_LIMIT };
  for (const touch of touches) {
    // A search walks the folder the name really reaches (its last form), `..` and symlinks resolved.
    const folder = pathForms(touch.path, options).at(-1)!;
    const decision =
      touch.action === 'search'
        ? decideSearch(
            gate,
            { ...request, action: 'search' },
            folder,
            usesSoFar,
            options.home,
            budget,
            searchWalk(folder, touch.filter, options.env),
          )
        : gate.decide({ ...request, action: touch.action, paths: pathForms(touch.path, options) }, usesSoFar);
    charges.push(...decision.charges);
    if (!worst || rank[decision.outcome] > rank[worst.outcome])
      worst = { ...decision, explanation: `${decision.explanation} (through ${touch.via})` };
  }
  if (dynamic.length && options.dynamic !== 'allow' && options.ownerRules) {
    const outcome = options.dynamic === 'deny' ? 'denied' : 'ask';
    if (!worst || rank[outcome] > rank[worst.outcome]) {
      worst = {
        outcome,
        action: 'run',
        rule: null,
        path: null,
        explanation: `the command reaches ${dynamic[0]}: the gate cannot tell whether that is a protected file`,
        to_change: 'name the files in the command itself, so that each can be decided',
        charges: [],
      };
    }
  }
  if (!worst) {
    return {
      outcome: 'allowed',
      action: 'run',
      rule: null,
      path: null,
      explanation: 'the command reaches no file a rule covers',
      to_change: 'the person who owns this computer can add a rule (docs/RULES.md) to protect a file',
      charges: [],
    };
  }
  // One use of each limit rule for the whole line, however many of its paths the rule covers.
  return {
    ...worst,
    charges: worst.outcome === 'denied' || worst.outcome === 'ask' ? [] : oneUseEach(charges),
  };
}
