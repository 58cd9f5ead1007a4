// The rules format (docs/RULES.md): its words, the shape of a rule, and a check of a rules file
// written without zod. A hook process reads rule files before every tool call of an agent, and
// loading zod alone takes longer than the runtime's own start, so the hook checks a file here and
// loads the zod schema (rules-schema.ts, used at every other boundary) only to say why a file is
// refused. test/gate/rules.test.ts holds the two to the same verdict and the same rules. Pure: no I/O.

/** What a rule does, from the least to the most restrictive. */
export const EFFECTS = ['allow', 'limit', 'redact', 'ask', 'deny'] as const;
export type Effect = (typeof EFFECTS)[number];

/** How restrictive an effect is: a decision takes the highest among the rules that apply. */
export const SEVERITY: Record<Effect, number> = { allow: 0, limit: 1, redact: 2, ask: 3, deny: 4 };

/** What an agent may be doing with a file, a folder or a key. */
export const ACTIONS = ['read', 'search', 'run', 'write', 'use_key'] as const;
export type Action = (typeof ACTIONS)[number];

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Where a rule comes from; a level may tighten the ones above it, never loosen them. */
export const LEVELS = ['builtin', 'organization', 'computer'] as const;
export type Level = (typeof LEVELS)[number];

/** The sizes a rule may have (docs/RULES.md), shared by this check and the schema. */
export const RULE_LIMITS = {
  rules: 10_000,
  paths: 256,
  pathLength: 1024,
  who: 64,
  whoLength: 128,
  projectLength: 1024,
  reasonLength: 512,
  perDay: 1_000_000,
} as const;

export const HOURS = /^([01]\d|2[0-3]):[0-5]\d-(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** One rule, as rules-schema.ts outputs it (that file checks the two shapes are the same). */
export interface Rule {
  effect: Effect;
  /** Patterns, trimmed; at least one is not a negation. */
  paths: string[];
  actions?: Action[];
  who?: string[];
  project?: string;
  /** With effect "limit" only, and required by it. */
  limit_per_day?: number;
  when?: { tz: string; hours?: string; weekdays?: Weekday[]; from?: string; until?: string };
  reason?: string;
}

/** A rule with where it came from: its level and an id that names it in every decision. */
export interface PlacedRule {
  id: string;
  level: Level;
  rule: Rule;
  /** The file a computer rule was read from, when it came from one. */
  file?: string;
  /**
   * The project root its paths are relative to, when not the asker's own: a rule file of a folder
   * above the asker's project (its `.svc/rules.json`) keeps its own root.
   */
  root?: string;
}

/**
 * The rules of a parsed rules file when every one is valid, as the schema would give them (strings
 * trimmed); undefined when any is not: then the schema says which and why.
 */
export function validRules(json: unknown): Rule[] | undefined {
  if (!Array.isArray(json) || json.length > RULE_LIMITS.rules) return undefined;
  const rules: Rule[] = [];
  for (const item of json) {
    const rule = validRule(item);
    if (!rule) return undefined;
    rules.push(rule);
  }
  return rules;
}

const RULE_FIELDS = new Set([
  'effect',
  'paths',
  'actions',
  'who',
  'project',
  'limit_per_day',
  'when',
  'reason',
]);
const WHEN_FIELDS = new Set(['tz', 'hours', 'weekdays', 'from', 'until']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const onlyFields = (value: Record<string, unknown>, fields: Set<string>) =>
  Object.keys(value).every((key) => fields.has(key));

const oneOf = <T extends string>(words: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (words as readonly string[]).includes(value);

/** The string trimmed, when it is one and its trimmed length is within bounds. */
function trimmed(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text.length >= 1 && text.length <= max ? text : undefined;
}

/** The list, when it is one of `min` to `max` items each of which `item` accepts (and maps). */
function list<T>(
  value: unknown,
  min: number,
  max: number,
  item: (v: unknown) => T | undefined,
): T[] | undefined {
  if (!Array.isArray(value) || value.length < min || value.length > max) return undefined;
  const out: T[] = [];
  for (const v of value) {
    const mapped = item(v);
    if (mapped === undefined) return undefined;
    out.push(mapped);
  }
  return out;
}

function validRule(value: unknown): Rule | undefined {
  if (!isObject(value) || !onlyFields(value, RULE_FIELDS)) return undefined;
  const { effect, limit_per_day } = value;
  if (!oneOf(EFFECTS, effect)) return undefined;
  const paths = list(value.paths, 1, RULE_LIMITS.paths, (p) => {
    const text = trimmed(p, RULE_LIMITS.pathLength);
    // `#…` is a comment to the matcher, as in a .gitignore file: a pattern that covers nothing.
    return text === '!' || (text !== undefined && /^!?#/.test(text)) ? undefined : text;
  });
  if (!paths || !paths.some((p) => !p.startsWith('!'))) return undefined;
  const rule: Rule = { effect, paths };
  if (value.actions !== undefined) {
    const actions = list(value.actions, 1, Infinity, (a) => (oneOf(ACTIONS, a) ? a : undefined));
    if (!actions) return undefined;
    rule.actions = actions;
  }
  if (value.who !== undefined) {
    const who = list(value.who, 1, RULE_LIMITS.who, (w) => trimmed(w, RULE_LIMITS.whoLength));
    if (!who) return undefined;
    rule.who = who;
  }
  if (value.project !== undefined) {
    const project = trimmed(value.project, RULE_LIMITS.projectLength);
    if (project === undefined) return undefined;
    rule.project = project;
  }
  if ((effect === 'limit') !== (limit_per_day !== undefined)) return undefined;
  if (limit_per_day !== undefined) {
    if (!Number.isInteger(limit_per_day)) return undefined;
    const n = limit_per_day as number;
    if (n < 1 || n > RULE_LIMITS.perDay) return undefined;
    rule.limit_per_day = n;
  }
  if (value.when !== undefined) {
    const when = validWhen(value.when);
    if (!when) return undefined;
    rule.when = when;
  }
  if (value.reason !== undefined) {
    const reason = trimmed(value.reason, RULE_LIMITS.reasonLength);
    if (reason === undefined) return undefined;
    rule.reason = reason;
  }
  return rule;
}

function validWhen(value: unknown): Rule['when'] {
  if (!isObject(value) || !onlyFields(value, WHEN_FIELDS)) return undefined;
  const { tz, hours, weekdays, from, until } = value;
  if (typeof tz !== 'string' || !isTimeZone(tz)) return undefined;
  const when: NonNullable<Rule['when']> = { tz };
  if (hours !== undefined) {
    if (typeof hours !== 'string' || !HOURS.test(hours)) return undefined;
    when.hours = hours;
  }
  if (weekdays !== undefined) {
    const days = list(weekdays, 1, 7, (d) => (oneOf(WEEKDAYS, d) ? d : undefined));
    if (!days) return undefined;
    when.weekdays = days;
  }
  for (const [key, date] of [
    ['from', from],
    ['until', until],
  ] as const) {
    if (date === undefined) continue;
    if (typeof date !== 'string' || !DATE.test(date)) return undefined;
    when[key] = date;
  }
  if (when.from && when.until && when.from > when.until) return undefined;
  return when;
}
