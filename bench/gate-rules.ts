// Benchmark `gate-rules`: decisions per second of the gate's engine over 1,000 rules (a mix of
// folders, wildcards, negations, actions, agents and time windows, at both levels), for paths no
// rule covers (the common case: every rule is tried) and for paths a rule denies. Compiling the
// 1,000 rules is timed too: a hook process compiles them once per event. Informational: the issue
// asks for the figure, not a target.
import { performance } from 'node:perf_hooks';
import { Gate } from '../src/gate/engine.ts';
import type { PlacedRule } from '../src/gate/rules.ts';
import { RuleSchema } from '../src/gate/rules-schema.ts';
import { measure, type Benchmark } from './lib.ts';

const RULES = 1000;
const anchors = { projectRoot: '/work/shop', home: '/home/ann' };

function rules(): PlacedRule[] {
  return Array.from({ length: RULES }, (_, i) => {
    const shape = i % 5;
    const rule = RuleSchema.parse(
      shape === 0
        ? { effect: 'deny', paths: [`team-${i}/secrets/`, `!team-${i}/secrets/README.md`] }
        : shape === 1
          ? { effect: 'ask', paths: [`*.export-${i}.csv`], actions: ['read', 'search'] }
          : shape === 2
            ? { effect: 'redact', paths: [`customers-${i}/`], who: [`bot-${i}`, 'cursor'] }
            : shape === 3
              ? { effect: 'limit', paths: [`~/archive-${i}/`], limit_per_day: 10 }
              : {
                  effect: 'deny',
                  paths: [`/srv/data-${i}/`],
                  when: { tz: 'Europe/Paris', hours: '09:00-18:00' },
                },
    );
    return { id: `r${i}`, level: i % 2 ? 'organization' : 'computer', rule };
  });
}

export const gateRules: Benchmark = {
  name: 'gate-rules',
  description: `the gate's engine: decisions per second over ${RULES} rules, and compiling them`,
  async run() {
    await Promise.resolve();
    const placed = rules();
    const start = performance.now();
    let gate = new Gate(placed, anchors);
    for (let i = 0; i < 9; i++) gate = new Gate(placed, anchors);
    const compileMs = (performance.now() - start) / 10;
    const now = new Date('2026-11-18T10:00:00Z');
    let n = 0;
    const uncovered = measure(() =>
      gate.decide(
        { action: 'read', paths: [`/work/shop/src/file-${n++ % 50}.ts`], agent: 'bot-1', now },
        () => 0,
      ),
    );
    const denied = measure(() =>
      gate.decide(
        { action: 'read', paths: [`/work/shop/team-${(n++ % 200) * 5}/secrets/key.pem`], now },
        () => 0,
      ),
    );
    return {
      metrics: [
        {
          key: 'uncovered_decisions_per_sec',
          label: 'a path no rule covers',
          value: uncovered.perSecond,
          unit: 'decisions/s',
        },
        {
          key: 'denied_decisions_per_sec',
          label: 'a path a folder rule denies',
          value: denied.perSecond,
          unit: 'decisions/s',
        },
        { key: 'compile_ms', label: `compiling ${RULES} rules`, value: compileMs, unit: 'ms' },
      ],
      checks: [],
      notes: [
        `${RULES} rules: folders with a negation, wildcards with actions, agents, ~/ folders with a daily limit, absolute folders with office hours`,
      ],
    };
  },
};
