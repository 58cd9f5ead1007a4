// The rules format (docs/RULES.md): what an owner writes, validated with zod wherever rules come
// in (the store, a project's .svc/rules.json, SVC_RULES_FILE, svc_rules). Pure: no I/O here.
import { z } from 'zod';

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

const HOURS = /^([01]\d|2[0-3]):[0-5]\d-(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const When = z
  .object({
    tz: z.string().refine(isTimeZone, 'tz must be an IANA time zone name, for example Europe/Paris or UTC'),
    hours: z
      .string()
      .regex(HOURS, 'hours is a local range "HH:MM-HH:MM", for example "09:00-17:30" (it may wrap midnight)')
      .optional(),
    weekdays: z.array(z.enum(WEEKDAYS)).min(1).max(7).optional(),
    from: z.string().regex(DATE, 'from is a local date YYYY-MM-DD').optional(),
    until: z.string().regex(DATE, 'until is a local date YYYY-MM-DD (the day itself included)').optional(),
  })
  .strict()
  .refine((w) => !w.from || !w.until || w.from <= w.until, 'from must not be after until');

export const RuleSchema = z
  .object({
    effect: z.enum(EFFECTS),
    paths: z
      .array(
        z
          .string()
          .trim()
          .min(1)
          .max(1024)
          .refine((p) => p !== '!', 'a path pattern is more than "!"'),
      )
      .min(1)
      .max(256),
    actions: z.array(z.enum(ACTIONS)).min(1).optional(),
    who: z.array(z.string().trim().min(1).max(128)).min(1).max(64).optional(),
    project: z.string().trim().min(1).max(1024).optional(),
    limit_per_day: z.number().int().min(1).max(1_000_000).optional(),
    when: When.optional(),
    reason: z.string().trim().min(1).max(512).optional(),
  })
  .strict()
  .refine((r) => (r.effect === 'limit') === (r.limit_per_day !== undefined), {
    message: 'limit_per_day goes with effect "limit", and effect "limit" needs it',
    path: ['limit_per_day'],
  })
  .refine((r) => r.paths.some((p) => !p.startsWith('!')), {
    message: 'a rule needs at least one path that is not a negation (!)',
    path: ['paths'],
  });

export type Rule = z.infer<typeof RuleSchema>;

export const RuleListSchema = z.array(RuleSchema).max(10_000);

/** A rule with where it came from: its level and an id that names it in every decision. */
export interface PlacedRule {
  id: string;
  level: Level;
  rule: Rule;
  /** The file a computer rule was read from, when it came from one. */
  file?: string;
}
