// The rules format checked two ways: without zod (rules.ts, what a hook uses at start) and with the
// zod schema (rules-schema.ts, what explains a refusal and guards every other boundary). They must
// give the same verdict and the same rules on every input, or a hook would keep a rule the schema
// refuses; so both run on hand-picked edges and on generated rule files near the format's limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuleListSchema } from '../../src/gate/rules-schema.ts';
import { ACTIONS, EFFECTS, RULE_LIMITS, WEEKDAYS, validRules } from '../../src/gate/rules.ts';

/** Both verdicts on one rules file, as JSON read from disk would give it. */
function both(json: unknown) {
  const zod = RuleListSchema.safeParse(json);
  return { quick: validRules(json), zod: zod.success ? zod.data : undefined };
}

const x = (n: number) => 'x'.repeat(n);

describe('the rules check without zod agrees with the schema', () => {
  it.each([
    ['a plain deny', [{ effect: 'deny', paths: ['.env'] }], true],
    [
      'every field',
      [
        {
          effect: 'limit',
          paths: [' reports/ ', '!reports/README.md'],
          actions: ['read', 'search'],
          who: [' cursor '],
          project: ' shop ',
          limit_per_day: 3,
          when: {
            tz: 'Europe/Paris',
            hours: '22:00-06:00',
            weekdays: ['sat'],
            from: '2026-01-01',
            until: '2026-01-01',
          },
          reason: ' quarterly reports ',
        },
      ],
      true,
    ],
    ['an empty list', [], true],
    ['not a list', { effect: 'deny', paths: ['a'] }, false],
    ['a path of blanks', [{ effect: 'deny', paths: ['  '] }], false],
    ['a path that is "!" once trimmed', [{ effect: 'deny', paths: ['a', ' ! '] }], false],
    ['only negations once trimmed', [{ effect: 'deny', paths: [' !a'] }], false],
    // A comment to the matcher would cover nothing: `\#notes.md` names the file.
    ['a path starting with #', [{ effect: 'deny', paths: ['#notes.md'] }], false],
    ['a negation starting with #', [{ effect: 'deny', paths: ['a', '!#b'] }], false],
    ['a # escaped', [{ effect: 'deny', paths: ['\\#notes.md'] }], true],
    ['the longest path', [{ effect: 'deny', paths: [x(RULE_LIMITS.pathLength)] }], true],
    ['a path one too long', [{ effect: 'deny', paths: [x(RULE_LIMITS.pathLength + 1)] }], false],
    [
      'a long path with blanks around it',
      [{ effect: 'deny', paths: [` ${x(RULE_LIMITS.pathLength)} `] }],
      true,
    ],
    ['too many paths', [{ effect: 'deny', paths: Array(RULE_LIMITS.paths + 1).fill('a') }], false],
    ['no paths', [{ effect: 'deny', paths: [] }], false],
    ['limit without a count', [{ effect: 'limit', paths: ['a'] }], false],
    ['a count on a deny', [{ effect: 'deny', paths: ['a'], limit_per_day: 2 }], false],
    ['a fractional count', [{ effect: 'limit', paths: ['a'], limit_per_day: 1.5 }], false],
    ['a count as text', [{ effect: 'limit', paths: ['a'], limit_per_day: '2' }], false],
    ['the largest count', [{ effect: 'limit', paths: ['a'], limit_per_day: RULE_LIMITS.perDay }], true],
    ['a count too large', [{ effect: 'limit', paths: ['a'], limit_per_day: RULE_LIMITS.perDay + 1 }], false],
    ['a null field', [{ effect: 'deny', paths: ['a'], reason: null }], false],
    ['an unknown field', [{ effect: 'deny', paths: ['a'], path: 'b' }], false],
    ['a __proto__ field', JSON.parse('[{"effect":"deny","paths":["a"],"__proto__":{}}]'), false],
    ['an unknown action', [{ effect: 'deny', paths: ['a'], actions: ['delete'] }], false],
    ['no actions', [{ effect: 'deny', paths: ['a'], actions: [] }], false],
    ['an unknown time zone', [{ effect: 'deny', paths: ['a'], when: { tz: 'Mars/Olympus' } }], false],
    ['when without tz', [{ effect: 'deny', paths: ['a'], when: { hours: '09:00-17:00' } }], false],
    [
      'hours to midnight',
      [{ effect: 'deny', paths: ['a'], when: { tz: 'UTC', hours: '18:00-24:00' } }],
      true,
    ],
    [
      'hours from 24:00',
      [{ effect: 'deny', paths: ['a'], when: { tz: 'UTC', hours: '24:00-01:00' } }],
      false,
    ],
    [
      'eight weekdays',
      [{ effect: 'deny', paths: ['a'], when: { tz: 'UTC', weekdays: [...WEEKDAYS, 'mon'] } }],
      false,
    ],
    [
      'from after until',
      [{ effect: 'deny', paths: ['a'], when: { tz: 'UTC', from: '2026-12-01', until: '2026-11-01' } }],
      false,
    ],
    ['an unknown field in when', [{ effect: 'deny', paths: ['a'], when: { tz: 'UTC', days: 1 } }], false],
    ['too many agents', [{ effect: 'deny', paths: ['a'], who: Array(RULE_LIMITS.who + 1).fill('a') }], false],
    [
      'a reason one too long',
      [{ effect: 'deny', paths: ['a'], reason: x(RULE_LIMITS.reasonLength + 1) }],
      false,
    ],
  ])('%s', (_name, json, valid) => {
    const { quick, zod } = both(json);
    expect(zod !== undefined).toBe(valid);
    expect(quick).toEqual(zod);
  });

  // Generated rules: a valid one, then (half the time) one field set to an unusual value: near a
  // limit, of a wrong type, or a field the format does not know. So they fall on both sides.
  const plain = fc.constantFrom('a', ' a ', 'secrets/', '~/.ssh/', '*.csv', '!a', 'docs/x.md');
  const odd = fc.oneof(
    fc.constantFrom('', ' ', '!', ' ! ', x(128), x(129), x(512), x(513), x(1024), x(1025), ` ${x(1024)} `),
    fc.string({ maxLength: 6 }),
  );
  const junk = fc.constantFrom(null, 0, 1, -1, 1.5, true, '3', [], {});
  const few = <T>(item: fc.Arbitrary<T>) => fc.array(item, { minLength: 1, maxLength: 3 });
  const around = <T>(item: fc.Arbitrary<T>, max: number) =>
    fc.oneof(fc.constant([]), fc.array(item, { minLength: max, maxLength: max + 1 }));
  const validWhen = fc.record(
    {
      tz: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York'),
      hours: fc.constantFrom('09:00-17:30', '22:00-06:00', '00:00-24:00'),
      weekdays: few(fc.constantFrom(...WEEKDAYS)),
      from: fc.constantFrom('2026-01-01', '2026-03-01'),
      until: fc.constantFrom('2026-03-01', '2026-12-31'),
    },
    { requiredKeys: ['tz'] },
  );
  const valid = fc
    .record(
      {
        effect: fc.constantFrom(...EFFECTS),
        paths: few(plain),
        actions: few(fc.constantFrom(...ACTIONS)),
        who: few(plain),
        project: plain,
        when: validWhen,
        reason: plain,
      },
      { requiredKeys: ['effect', 'paths'] },
    )
    .chain((r) =>
      r.effect === 'limit'
        ? fc.constantFrom(1, 20, RULE_LIMITS.perDay).map((n) => ({ ...r, limit_per_day: n }))
        : fc.constant(r),
    );
  const unusual: Record<string, fc.Arbitrary<unknown>> = {
    effect: fc.oneof(fc.constantFrom('block', 'Deny', ''), junk),
    paths: fc.oneof(few(odd), around(plain, RULE_LIMITS.paths), junk),
    actions: fc.oneof(few(fc.constantFrom(...ACTIONS, 'delete')), around(fc.constant('read'), 6), junk),
    who: fc.oneof(few(odd), around(plain, RULE_LIMITS.who), junk),
    project: fc.oneof(odd, junk),
    limit_per_day: fc.oneof(fc.constantFrom(0, 1, RULE_LIMITS.perDay + 1, 2.5), junk),
    when: fc.oneof(
      fc
        .tuple(
          validWhen,
          fc.oneof(
            fc.record({ tz: fc.constantFrom('Mars/Olympus', '', 'utc') }),
            fc.record({ hours: fc.constantFrom('24:00-01:00', '9-5', '09:60-10:00') }),
            fc.record({
              weekdays: fc.oneof(around(fc.constantFrom(...WEEKDAYS), 7), few(fc.constant('Mon'))),
            }),
            fc.record({ from: fc.constantFrom('2026-1-1', '2027-01-01') }),
            fc.record({ days: fc.constant(1) }),
          ),
        )
        .map(([w, change]) => ({ ...w, ...change })),
      junk,
    ),
    reason: fc.oneof(odd, junk),
    path: plain,
  };
  const rule = fc
    .tuple(valid, fc.boolean(), fc.constantFrom(...Object.keys(unusual)))
    .chain(([r, change, field]) =>
      change ? unusual[field]!.map((value) => ({ ...r, [field]: value })) : fc.constant(r),
    );

  it('on generated rule files, valid ones among them', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof(fc.array(rule, { maxLength: 3 }), rule, fc.jsonValue()), (generated) => {
        const json: unknown = JSON.parse(JSON.stringify(generated));
        const { quick, zod } = both(json);
        expect(quick).toEqual(zod);
        if (zod?.length) valid++;
      }),
      { numRuns: 3000 },
    );
    // Agreement on refusals alone would prove little: enough files with rules must be valid.
    expect(valid).toBeGreaterThan(100);
  });
});
