// The gate as a long-running process uses it (`svc serve`, `svc mcp`): svc's own tools ask it
// before they touch a file, and `svc_rules` tests and explains with it. Decisions are the hook's
// (src/gate/check.ts), counted and recorded in the same store (gate-record.ts). The rules of each
// project are compiled once and kept until a rule file changes: chokidar watches every rule file
// a cached project read, so an edit is seen at once, without a restart.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { ServiceError } from './errors.ts';
import {
  GateUnavailable,
  decideWith,
  gateOver,
  touchedFolders,
  type Asker,
  type GateAsk,
  type GateSetting,
} from '../gate/check.ts';
import { oneUseEach, type Decision, type Gate, type UsesSoFar } from '../gate/engine.ts';
import type { RuleSet } from '../gate/local.ts';
import {
  RulesUnreadable,
  commandReach,
  decideSearch,
  otherProjectRoots,
  otherRuleFiles,
  projectRootOf,
  projectRuleFiles,
} from '../gate/local.ts';
import { pathForms } from '../gate/resolve.ts';
import type { Action, Rule } from '../gate/rules.ts';
import type { Context } from './context.ts';
import { decideAndRecord, type RecordedDecision } from './gate-record.ts';
import { readOrganizationRules, withCountedUses } from './rules-read.ts';
import type { Admit } from './scan-files.ts';
import { printable } from './printable.ts';

export interface GateCheckOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** svc's core on this computer, opened when a decision must be counted or recorded. */
  core: () => Context;
  /** Watch rule files for changes (default true); off for one-shot processes such as the CLI. */
  watch?: boolean;
}

/** A rule that covers a path, as `svc rules explain` lists it. */
export interface Covering {
  id: string;
  level: string;
  effect: string;
  reason: string | null;
  file: string | null;
}

export interface Explanation {
  decision: Decision;
  /** Every rule that covers the path for this action now, the deciding one among them. */
  covering: Covering[];
  /** Rules of this computer that would loosen a rule above them: in force, where the stricter holds. */
  refused: { id: string; message: string }[];
  project_root: string;
}

interface Compiled {
  key: string;
  /** Size, mtime and inode of each rule file when it was read. */
  stamp: string;
  gate: Gate;
  ruleSet: RuleSet;
}

function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return 'none';
  }
}

const isFolder = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** Compiled rule sets a process keeps: a project's own, and sets with other projects (`compiled`). */
const MAX_COMPILED = 64;

export class GateCheck {
  private readonly options: GateCheckOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly cache = new Map<string, Compiled>();
  /** Loaded with the first project's rules (chokidar is not part of a server's start), then ready. */
  private watcher: Promise<FSWatcher> | undefined;
  private readonly reloaded = new Set<() => void>();
  private readonly watched = new Set<string>();

  constructor(options: GateCheckOptions) {
    this.options = options;
    this.env = options.env ?? process.env;
  }

  private setting(): GateSetting {
    return {
      dataDir: this.options.dataDir,
      home: this.env.HOME?.trim() || homedir(),
      env: this.env,
      organization: readOrganizationRules(join(this.options.dataDir, 'svc.db')),
    };
  }

  /**
   * The compiled rules for the project `cwd` is in and, when `touched` reaches other projects, for
   * them too (their rule files, and the rules for every project placed at their roots): from the
   * cache while no rule file changed. A walk over another project's files asks for the same set
   * at each file, so it is compiled once, not once a file.
   */
  private async compiled(
    setting: GateSetting,
    cwd: string,
    touched: readonly string[] = [],
    roots?: Map<string, readonly string[]>,
  ): Promise<Compiled & { projectRoot: string }> {
    const projectRoot = projectRootOf(cwd);
    const others = otherRuleFiles(projectRoot, touched);
    const otherProjects = otherProjectRoots(projectRoot, touched, roots);
    // Organization rules are read at every check (a read of the store, about a millisecond), so
    // a rule an owner adds holds at once; the cache entry is kept only while they are the same.
    const key = JSON.stringify(setting.organization.map((r) => [r.id, r.rule]));
    // chokidar reports an edit at once, but drops a second change to a file within 50 ms of the
    // first; the files' stamps are compared at each check as well (a stat each), so an edit it
    // missed can never leave stale rules in force.
    const files = [...this.ruleFiles(projectRoot), ...others.map((o) => o.file)];
    const stamp = files.map(stampOf).join('|');
    const entry = [projectRoot, ...others.map((o) => o.file), '', ...otherProjects.sort()].join('\u0000');
    const hit = this.cache.get(entry);
    if (hit && hit.key === key && hit.stamp === stamp) return { ...hit, projectRoot };
    const { gate, ruleSet } = await gateOver(setting, cwd, others, otherProjects);
    // Sets of other projects are as many as the places agents reach: the oldest goes past a bound.
    if (this.cache.size >= MAX_COMPILED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(entry, { key, stamp, gate, ruleSet });
    this.watchFilesOf(projectRoot);
    return { key, stamp, gate, ruleSet, projectRoot };
  }

  private ruleFiles(projectRoot: string): string[] {
    const named = this.env.SVC_RULES_FILE?.trim();
    return [...projectRuleFiles(projectRoot).map((f) => f.file), ...(named ? [named] : [])];
  }

  private watchFilesOf(projectRoot: string): void {
    if (this.options.watch === false) return;
    // The project's own file is watched before it exists; the folders above only for files that
    // do (the stamps, compared at every check, see one made later).
    const [own, ...rest] = this.ruleFiles(projectRoot);
    const files = [own!, ...rest.filter((file) => existsSync(file))].filter(
      (file) => !this.watched.has(file),
    );
    if (files.length === 0) return;
    for (const file of files) this.watched.add(file);
    if (!this.watcher) {
      // Rule files are small and rarely written: a change drops every compiled project (a named
      // file holds for all of them), and the next check compiles again.
      this.watcher = import('chokidar').then(({ watch }) => {
        // Not persistent: watching never keeps a process alive that has nothing else to do.
        const watcher = watch(files, { ignoreInitial: true, persistent: false });
        watcher.on('all', () => {
          this.cache.clear();
          for (const listener of this.reloaded) listener();
        });
        return new Promise<FSWatcher>((resolve) => watcher.once('ready', () => resolve(watcher)));
      });
    } else {
      void this.watcher.then((watcher) => watcher.add(files));
    }
  }

  /** Called after a rule file changed and the cached rules were dropped (tests wait on it). */
  onReload(listener: () => void): () => void {
    this.reloaded.add(listener);
    return () => this.reloaded.delete(listener);
  }

  /** Resolves once the rule files read so far are watched. */
  async ready(): Promise<void> {
    await this.watcher;
  }

  /**
   * Decides what a tool is about to do, counted and recorded as the hook does. A decision that
   * cannot be made (unreadable rules) throws: the caller refuses. With `alsoAs`, the paths of a
   * `paths` ask are decided as each of those actions too (a scan reads and searches), and the
   * strictest decision is the one counted and recorded: one audit row, never one per action.
   */
  async check(
    ask: GateAsk,
    asker: Asker,
    setting: GateSetting = this.setting(),
    alsoAs: readonly Action[] = [],
    /** Folders' projects already looked up (otherProjectRoots), kept for one walk. */
    roots: Map<string, readonly string[]> = new Map(),
  ): Promise<RecordedDecision> {
    const where = { cwd: asker.cwd, home: setting.home };
    const reach = ask.kind === 'shell' ? commandReach(ask.command, where) : undefined;
    // Files of another project are decided under its rules too.
    const { gate, ruleSet } = await this.compiled(
      setting,
      asker.cwd,
      touchedFolders(ask, reach, where),
      roots,
    );
    const now = new Date();
    const asks = ask.kind === 'paths' ? [ask, ...alsoAs.map((action) => ({ ...ask, action }))] : [ask];
    const decide = (usesSoFar: UsesSoFar) =>
      strictest(asks.map((one) => decideWith({ gate, ruleSet, setting, reach }, one, asker, now, usesSoFar)));
    const first = decide(() => 0);
    if (!first.rule && first.charges.length === 0) return { decision: first, receipt_id: null };
    return decideAndRecord(this.options.core(), decide, asker);
  }

  /**
   * The gate for one walk over many files: the organization rules are read from the store once, at
   * its first check, not at each file's (a read of the store each: 0.22 s of a walk over 840
   * files). A rule added during a walk holds from the next one, as one added during a call holds
   * from the next call. Which project holds each folder is looked up once a walk, too.
   */
  forOneWalk(): Pick<GateCheck, 'check'> {
    let setting: GateSetting | undefined;
    const roots = new Map<string, readonly string[]>();
    return {
      check: (ask, asker, _setting, alsoAs) =>
        this.check(ask, asker, (setting ??= this.setting()), alsoAs, roots),
    };
  }

  /** Every rule the gate applies for the project `cwd` is in, and the refused ones. */
  async list(asker: Pick<Asker, 'cwd'>): Promise<{
    rules: (Rule & { id: string; level: string; file: string | null })[];
    refused: { id: string; message: string }[];
    project_root: string;
  }> {
    const { ruleSet, projectRoot } = await this.compiled(this.setting(), asker.cwd);
    return {
      rules: ruleSet.rules.map((p) => ({ id: p.id, level: p.level, file: p.file ?? null, ...p.rule })),
      refused: ruleSet.refused.map((r) => ({ id: r.rule.id, message: r.message })),
      project_root: projectRoot,
    };
  }

  /** What the gate would decide for `action` on `path` now, and every rule that covers it; records nothing. */
  async explain(path: string, action: Action, asker: Asker): Promise<Explanation> {
    const setting = this.setting();
    const where = { cwd: asker.cwd, home: setting.home };
    const paths = pathForms(path, where);
    // A search of a folder is decided as the hook decides it: over every file the search reaches.
    const folder = action === 'search' && isFolder(paths.at(-1)!) ? paths.at(-1)! : undefined;
    // A file of another project is explained under its rules too, as `check` decides it: else a
    // path the gate denies could be explained as covered by no rule.
    const ask: GateAsk = folder
      ? { kind: 'folder', action: 'search', folder }
      : { kind: 'paths', action, paths: [path] };
    const { gate, ruleSet, projectRoot } = await this.compiled(
      setting,
      asker.cwd,
      touchedFolders(ask, undefined, where),
    );
    const request = { action, paths, agent: asker.agent, client: asker.client, now: new Date() };
    return {
      // The uses counted so far, read from the store: a limit that ran out says `denied`, as the
      // next call would be told.
      decision: withCountedUses(join(this.options.dataDir, 'svc.db'), (uses) =>
        folder ? decideSearch(gate, request, folder, uses, setting.home) : gate.decide(request, uses),
      ),
      covering: gate.covering(request).map(({ placed }) => ({
        id: placed.id,
        level: placed.level,
        effect: placed.rule.effect,
        reason: placed.rule.reason ?? null,
        file: placed.file ?? null,
      })),
      refused: ruleSet.refused.map((r) => ({ id: r.rule.id, message: r.message })),
      project_root: projectRoot,
    };
  }

  async close(): Promise<void> {
    await (await this.watcher)?.close();
    this.watcher = undefined;
    this.watched.clear();
    this.cache.clear();
  }
}

/**
 * How strict an outcome is when one call needs several actions at once (a scan reads a file as it
 * is, and searches it): `clean_copy` ranks above `ask` here, as the person's yes to a search would
 * not open a file only its clean copy may leave. (For one action, `ask` is the stricter: a yes
 * gives the file as it is.)
 */
const TOGETHER: Record<Decision['outcome'], number> = {
  allowed: 0,
  limited: 1,
  ask: 2,
  clean_copy: 3,
  denied: 4,
};

/**
 * The strictest of decisions on one thing (the most restrictive outcome for all its actions
 * together; the first of equals), with the uses of every decision of that outcome, each once: a
 * file read and searched under one rule that limits both is one use.
 */
function strictest(decisions: readonly Decision[]): Decision {
  if (decisions.length === 1) return decisions[0]!;
  const rank = (d: Decision) => TOGETHER[d.outcome];
  const worst = decisions.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  const equals = decisions.filter((d) => d.outcome === worst.outcome);
  const charges = oneUseEach(equals.flatMap((d) => d.charges));
  // Uses left: the fewest any of the limits has.
  const left = equals.flatMap((d) => (d.remaining === undefined ? [] : [d.remaining]));
  return {
    ...worst,
    charges,
    ...(left.length > 0 ? { remaining: Math.min(...left) } : {}),
  };
}

/**
 * The gate's recorded decision on `ask` (and on its paths as each action of `alsoAs`: see
 * `GateCheck.check`). Rules that cannot be read are the owner's to fix: until then the answer is
 * `forbidden`, and nothing is touched.
 */
export async function decideOrRefuse(
  gate: Pick<GateCheck, 'check'>,
  ask: GateAsk,
  asker: Asker,
  alsoAs: readonly Action[] = [],
): Promise<RecordedDecision> {
  try {
    return await gate.check(ask, asker, undefined, alsoAs);
  } catch (error) {
    if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
      throw new ServiceError(
        'forbidden',
        `the read gate cannot decide, so nothing was touched: ${error.message}`,
      );
    }
    throw error;
  }
}

/**
 * A walk over files of this computer on behalf of `asker` (an agent's tool, or a command an agent
 * may have started), reading each file only when the gate's outcome for its read (and for each
 * action of `alsoAs`: a scan searches too) is one of `admitted`; each decision is recorded as the
 * gate records it. A file a rule asks about is held (`'ask'`), and the rules that asked are kept
 * in `asking`, for the one question the walk's owner puts to the person at its end
 * (`heldQuestion`). Should the gate be unable to decide (see `decideOrRefuse`), the walk stops
 * there, having read nothing it was not let read.
 */
export function walkAsAsker<T>(
  gate: GateCheck,
  asker: Asker,
  admitted: readonly Decision['outcome'][],
  walk: (admit: Admit, asking: AskingRules) => Promise<T>,
  alsoAs: readonly Action[] = [],
  /** Filled, when given, with each `limit` rule the walk used and the fewest uses it left today. */
  limits?: Map<string, number>,
): Promise<T> {
  const once = gate.forOneWalk();
  const asking: AskingRules = new Map();
  return walk(async (path) => {
    const { decision } = await decideOrRefuse(
      once,
      { kind: 'paths', action: 'read', paths: [path] },
      asker,
      alsoAs,
    );
    if (limits && decision.outcome === 'limited' && decision.rule && decision.remaining !== undefined) {
      const left = limits.get(decision.rule.id);
      limits.set(
        decision.rule.id,
        left === undefined ? decision.remaining : Math.min(left, decision.remaining),
      );
    }
    if (admitted.includes(decision.outcome)) return decision.outcome === 'clean_copy' ? 'clean' : true;
    if (decision.outcome !== 'ask') return false;
    // A rule that lets out only a clean copy covers it too (`ask` outranks it for one action): the
    // person's yes opens the clean copy, never the file as it is. A walk that has no use for a clean
    // copy (a scan) does not ask.
    const cleanToo = (await gate.explain(path, 'read', asker)).covering.some((c) => c.effect === 'redact');
    if (cleanToo && !admitted.includes('clean_copy')) return false;
    if (decision.rule) asking.set(decision.rule.id, decision.rule.reason ?? null);
    return cleanToo ? 'ask-clean' : 'ask';
  }, asking);
}

/** The rules that asked about files of one walk: id and reason. */
export type AskingRules = Map<string, string | null>;

/** Names listed at most in one question. */
const HELD_NAMED = 10;

/**
 * The one question about the files `ask` rules held in a walk, for a form or a terminal: what
 * would read them, their names and the rules that ask.
 */
export function heldQuestion(files: readonly string[], asking: AskingRules, reader: string): string {
  const names = `${files.slice(0, HELD_NAMED).map(printable).join(', ')}${files.length > HELD_NAMED ? ` and ${files.length - HELD_NAMED} more` : ''}`;
  const rules = [...asking]
    .slice(0, 3)
    .map(([id, reason]) => printable(reason ? `${id} (${reason})` : id))
    .join(', ');
  const one = files.length === 1;
  return `${asking.size > 1 ? 'Rules' : 'A rule'}${rules ? ` ${rules}${asking.size > 3 ? ' and more' : ''}` : ''} ${asking.size > 1 ? 'ask' : 'asks'} you before ${one ? 'this file is' : `these ${files.length} files are`} read: ${names}. Let ${reader} read ${one ? 'it' : 'them'} too?`;
}
