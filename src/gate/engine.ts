// The gate's decision: which of the owner's rules apply to an agent's action on some paths, and
// the most restrictive outcome among them (not allowed > ask > clean copy only > up to N a day >
// allowed). Every decision names the rule that decided, its level, and in plain words what would
// change it. The engine does no I/O: paths come resolved (resolve.ts), the clock comes with the
// request, and the uses a limit has counted so far come from a function the caller provides.
import { basename } from 'node:path';
import { PathPattern, type Anchors } from './match.ts';
import { SEVERITY, type Action, type Effect, type Level, type PlacedRule, type Rule } from './rules.ts';
import { countingDay, inWindow, localClock, type LocalClock } from './when.ts';

export interface GateRequest {
  action: Action;
  /** What the action touches: absolute paths, `..` and symlinks resolved (resolve.ts gives both forms). */
  paths: readonly string[];
  /** The agent's handle, when known. */
  agent?: string | undefined;
  /** The client it runs in (claude-code, cursor, gemini-cli, codex, svc). */
  client?: string | undefined;
  now: Date;
}

/** What the gate answers, in the words of docs/RULES.md. */
export const OUTCOMES = ['allowed', 'limited', 'clean_copy', 'ask', 'denied'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const OUTCOME_OF: Record<Effect, Outcome> = {
  allow: 'allowed',
  limit: 'limited',
  redact: 'clean_copy',
  ask: 'ask',
  deny: 'denied',
};

/** One use a `limit` rule counts: recorded by the caller once the action goes ahead. */
export interface Charge {
  rule_id: string;
  subject: string;
  day: string;
}

/** Each use once: the same rule, subject and day counted by several paths or actions of one call is one use. */
export function oneUseEach(charges: Iterable<Charge>): Charge[] {
  const once = new Map<string, Charge>();
  for (const c of charges) once.set(`${c.rule_id}\u0000${c.subject}\u0000${c.day}`, c);
  return [...once.values()];
}

/** How many uses a limit rule has counted for a subject on a day (the store keeps them). */
export type UsesSoFar = (charge: Charge) => number;

export interface Decision {
  outcome: Outcome;
  action: Action;
  /** The rule that decided; null when no rule covers the paths (allowed by default). */
  rule: { id: string; level: Level; effect: Effect; reason: string | null } | null;
  /** The path the deciding rule covered, or null. */
  path: string | null;
  /** What was decided and why, in plain words. */
  explanation: string;
  /** What would change the decision, in plain words. */
  to_change: string;
  /** For `limited`: uses left today after this one. */
  remaining?: number;
  /** Uses to record when the action goes ahead: one per limit rule that applied. */
  charges: Charge[];
}

interface Compiled {
  placed: PlacedRule;
  paths: PathPattern;
  who: Set<string> | undefined;
}

/** Who a limit counts: the agent, else the client, else anyone at all. */
const subjectOf = (request: GateRequest) => request.agent ?? request.client ?? 'anyone';

const LEVEL_WORDS: Record<Level, string> = {
  builtin: 'a built-in rule',
  organization: 'an organization rule',
  computer: "this computer's rule",
};

/** Levels by precedence, for naming one rule among equally restrictive ones: the highest level wins. */
const LEVEL_RANK: Record<Level, number> = { builtin: 2, organization: 1, computer: 0 };

export class Gate {
  private readonly rules: Compiled[];
  private readonly anchors: Anchors;

  constructor(rules: readonly PlacedRule[], anchors: Anchors) {
    this.anchors = anchors;
    this.rules = rules.map((placed) => ({
      placed,
      paths: new PathPattern(
        placed.rule.paths,
        placed.root ? { ...anchors, projectRoot: placed.root } : anchors,
      ),
      who: placed.rule.who ? new Set(placed.rule.who.map((w) => w.toLowerCase())) : undefined,
    }));
  }

  decide(request: GateRequest, usesSoFar: UsesSoFar): Decision {
    let best:
      | { compiled: Compiled; effect: Effect; path: string; exhausted?: Charge & { limit: number } }
      | undefined;
    const charges: Charge[] = [];
    let remaining: number | undefined;
    const clock = localClock(request.now);
    // A rule placed at several projects' roots (local.ts, computerRules) is one rule: taken once.
    const taken = new Set<string>();
    for (const compiled of this.rules) {
      const { rule } = compiled.placed;
      if (taken.has(compiled.placed.id) || !this.applies(compiled, request, clock)) continue;
      const path = request.paths.find((p) => compiled.paths.matches(p));
      if (path === undefined) continue;
      taken.add(compiled.placed.id);
      let effect = rule.effect;
      let exhausted: (Charge & { limit: number }) | undefined;
      if (rule.effect === 'limit') {
        const charge = {
          rule_id: compiled.placed.id,
          subject: subjectOf(request),
          day: countingDay(rule.when, clock),
        };
        const used = usesSoFar(charge);
        if (used >= rule.limit_per_day!) {
          effect = 'deny';
          exhausted = { ...charge, limit: rule.limit_per_day! };
        } else {
          charges.push(charge);
          const left = rule.limit_per_day! - used - 1;
          remaining = remaining === undefined ? left : Math.min(remaining, left);
        }
      }
      if (
        !best ||
        SEVERITY[effect] > SEVERITY[best.effect] ||
        (SEVERITY[effect] === SEVERITY[best.effect] &&
          LEVEL_RANK[compiled.placed.level] > LEVEL_RANK[best.compiled.placed.level])
      ) {
        best = { compiled, effect, path, ...(exhausted ? { exhausted } : {}) };
      }
    }
    if (!best) {
      return {
        outcome: 'allowed',
        action: request.action,
        rule: null,
        path: null,
        explanation: `no rule covers ${describe(request.paths)} for ${request.action}: allowed`,
        to_change: 'the person who owns this computer can add a rule (docs/RULES.md) to protect it',
        charges: [],
      };
    }
    const { placed } = best.compiled;
    const outcome = OUTCOME_OF[best.effect];
    return {
      outcome,
      action: request.action,
      rule: {
        id: placed.id,
        level: placed.level,
        effect: placed.rule.effect,
        reason: placed.rule.reason ?? null,
      },
      path: best.path,
      explanation: explain(outcome, request, best.path, placed, best.exhausted),
      to_change: toChange(outcome, placed, best.exhausted),
      ...(outcome === 'limited' && remaining !== undefined ? { remaining } : {}),
      charges: outcome === 'denied' || outcome === 'ask' ? [] : charges,
    };
  }

  /**
   * Every rule that covers the request now (its conditions met and one of its paths matched),
   * whatever its effect, the most restrictive first: what `svc rules explain` lists.
   */
  covering(request: GateRequest): { placed: PlacedRule; path: string }[] {
    const clock = localClock(request.now);
    const taken = new Set<string>();
    return this.rules
      .flatMap((compiled) => {
        if (taken.has(compiled.placed.id) || !this.applies(compiled, request, clock)) return [];
        const path = request.paths.find((p) => compiled.paths.matches(p));
        if (path === undefined) return [];
        taken.add(compiled.placed.id);
        return [{ placed: compiled.placed, path }];
      })
      .sort(
        (a, b) =>
          SEVERITY[b.placed.rule.effect] - SEVERITY[a.placed.rule.effect] ||
          LEVEL_RANK[b.placed.level] - LEVEL_RANK[a.placed.level],
      );
  }

  /** The conditions other than the paths: action, who, project and time. */
  private applies({ placed, who }: Compiled, request: GateRequest, clock: LocalClock): boolean {
    const { rule } = placed;
    if (rule.actions && !rule.actions.includes(request.action)) return false;
    if (
      who &&
      !who.has('*') &&
      !(request.agent && who.has(request.agent.toLowerCase())) &&
      !(request.client && who.has(request.client.toLowerCase()))
    ) {
      return false;
    }
    if (rule.project && !this.inProject(rule.project, placed.root ?? this.anchors.projectRoot)) return false;
    return inWindow(rule.when, clock);
  }

  /**
   * A rule's `project` names the project by its root (absolute or `~/…`) or by the root's folder
   * name; `projectRoot` is the one the rule is placed at.
   */
  private inProject(project: string, projectRoot: string): boolean {
    const { home } = this.anchors;
    const named = project.startsWith('~/') ? `${home}/${project.slice(2)}` : project;
    return named.replace(/\/+$/, '') === projectRoot || project === basename(projectRoot);
  }
}

function describe(paths: readonly string[]): string {
  return paths.length === 1 ? paths[0]! : `${paths[0]} (and ${paths.length - 1} more)`;
}

function explain(
  outcome: Outcome,
  request: GateRequest,
  path: string,
  placed: PlacedRule,
  exhausted: (Charge & { limit: number }) | undefined,
): string {
  const by = `${LEVEL_WORDS[placed.level]} (${placed.id})${placed.rule.reason ? `: ${placed.rule.reason}` : ''}`;
  const what = `${request.action} of ${path}`;
  if (exhausted) {
    return `${what} is not allowed: ${exhausted.subject} has used all ${exhausted.limit} uses allowed on ${exhausted.day} by ${by}`;
  }
  switch (outcome) {
    case 'denied':
      return `${what} is not allowed by ${by}`;
    case 'ask':
      return `${what} needs the person's approval, by ${by}`;
    case 'clean_copy':
      return `${what} is allowed as a clean copy only (secrets and personal data replaced), by ${by}`;
    case 'limited':
      return `${what} is allowed up to ${placed.rule.limit_per_day} times a day, by ${by}`;
    case 'allowed':
      return `${what} is allowed by ${by}`;
  }
}

function toChange(outcome: Outcome, placed: PlacedRule, exhausted: Charge | undefined): string {
  // Said to the agent as much as to the person: only a person changes rules, never the agent.
  if (placed.level === 'builtin')
    return `nothing can change this (${placed.rule.reason ?? 'a built-in rule'})`;
  const owner =
    placed.level === 'organization'
      ? `an organization owner can change or remove rule ${placed.id}; this computer's rules can only tighten it`
      : placed.file
        ? `the person who owns this computer can edit or remove that rule in ${placed.file} (an agent cannot)`
        : `the person who owns this computer can change or remove rule ${placed.id}`;
  if (exhausted)
    return `wait for the next day (the count resets at midnight in the rule's time zone), or ${owner}`;
  if (outcome === 'ask') return `the person can approve this once; or ${owner}`;
  if (outcome === 'clean_copy') return `read a clean copy instead; or ${owner}`;
  return owner;
}

/** A rule of a lower level that would loosen one above it, and the rule it would loosen. */
export interface Loosening {
  rule: PlacedRule;
  effect: Effect;
}

/**
 * The rules above `candidate`'s level that it would loosen: rules with a more restrictive effect
 * whose paths, actions and subjects overlap its own. Levels only tighten, so such a candidate is
 * refused when it is added. Two pattern lists overlap when either covers a sample path of the
 * other (see probes): a candidate on `secrets/public.txt` overlaps a rule on `secrets/`, one on
 * `exports/*.csv` a rule on `*.csv`.
 */
export function loosenings(
  candidate: Rule,
  level: Exclude<Level, 'builtin'>,
  above: readonly PlacedRule[],
  anchors: Anchors,
): Loosening[] {
  const mine = new PathPattern(candidate.paths, anchors);
  const myProbes = probes(candidate.paths, anchors);
  return above
    .filter((placed) => LEVEL_RANK[placed.level] > LEVEL_RANK[level])
    .filter((placed) => SEVERITY[placed.rule.effect] > SEVERITY[candidate.effect])
    .filter((placed) => overlap(placed.rule.actions, candidate.actions))
    .filter((placed) => overlapWho(placed.rule.who, candidate.who))
    .filter((placed) => {
      const theirs = new PathPattern(placed.rule.paths, anchors);
      return (
        myProbes.some((p) => theirs.matches(p)) ||
        probes(placed.rule.paths, anchors).some((p) => mine.matches(p))
      );
    })
    .map((placed) => ({ rule: placed, effect: placed.rule.effect }));
}

const overlap = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined) =>
  !a || !b || a.some((x) => b.includes(x));

const overlapWho = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  !a ||
  !b ||
  a.includes('*') ||
  b.includes('*') ||
  overlap(
    a.map((x) => x.toLowerCase()),
    b.map((x) => x.toLowerCase()),
  );

/**
 * Sample paths standing for a pattern list: each plain pattern with its wildcards filled in
 * (`exports/*.csv` stands for `exports/x.csv`), and something inside it, in case it names a folder.
 */
function probes(patterns: readonly string[], anchors: Anchors): string[] {
  return patterns
    .filter((p) => !p.startsWith('!'))
    .flatMap((pattern) => {
      const filled = pattern
        .replace(/\[!?([^\]])[^\]]*\]/g, '$1')
        .replace(/\*\*\/?/g, 'x/')
        .replace(/[*?]/g, 'x')
        .replace(/\/+$/, '');
      const path = filled.startsWith('~/')
        ? `${anchors.home}/${filled.slice(2)}`
        : filled.startsWith('/')
          ? filled
          : `${anchors.projectRoot}/${filled.replace(/^\.\//, '')}`;
      return [path, `${path}/x`];
    });
}
