// The rules format (docs/RULES.md) as a zod schema, wherever rules come in (the store, svc_rules)
// and wherever a rules file is refused, to say which rule and why. A hook checks rule files with
// rules.ts first and loads this only for a file that check refuses.
import { z } from 'zod';
import { ACTIONS, DATE, EFFECTS, HOURS, RULE_LIMITS, WEEKDAYS, isTimeZone, type Rule } from './rules.ts';

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
          .max(RULE_LIMITS.pathLength)
          .refine((p) => p !== '!', 'a path pattern is more than "!"')
          // As in a .gitignore file, a line starting with `#` is a comment: it would cover nothing.
          .refine(
            (p) => !/^!?#/.test(p),
            'a path pattern starting with "#" is a comment and covers nothing: write "\\#name" for a name that starts with #',
          ),
      )
      .min(1)
      .max(RULE_LIMITS.paths),
    actions: z.array(z.enum(ACTIONS)).min(1).optional(),
    who: z.array(z.string().trim().min(1).max(RULE_LIMITS.whoLength)).min(1).max(RULE_LIMITS.who).optional(),
    project: z.string().trim().min(1).max(RULE_LIMITS.projectLength).optional(),
    limit_per_day: z.number().int().min(1).max(RULE_LIMITS.perDay).optional(),
    when: When.optional(),
    reason: z.string().trim().min(1).max(RULE_LIMITS.reasonLength).optional(),
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

export const RuleListSchema = z.array(RuleSchema).max(RULE_LIMITS.rules);

// The schema gives exactly the Rule the engine reads: a compile-time check, so the two cannot drift.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.infer<typeof RuleSchema>, Rule> = true;
void sameShape;
