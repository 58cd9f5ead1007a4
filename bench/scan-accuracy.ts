// Benchmark `scan-accuracy`: recall and precision of svc and of secretlint (recommended preset) on
// the synthetic corpus of the tests (test/scan/corpus.ts, same seed): per category, and per kind of
// secret secretlint has a rule for. A finding counts where it falls inside a planted value (for
// personal data, of the same type); anything else is a false find. The target: svc's recall at
// least secretlint's on every kind secretlint covers. secretlint does not look for personal data.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCANNER_RULES, scanFolder } from '../src/backend/scan-folder.ts';
import { asFound, score, writeCorpus, type Found, type Scored } from '../test/scan/corpus.ts';
import { atLeast, progress, withTempDir, type Benchmark, type Check, type Metric } from './lib.ts';
import { secretlint } from './secretlint.ts';

/**
 * The kinds of secret secretlint's recommended preset has a rule for, each with the svc rules whose
 * formats plant that kind in the corpus. AWS account ids (which secretlint also reports) are not
 * secrets and are not planted.
 */
export const SECRETLINT_KINDS: Record<string, readonly string[]> = {
  'secretlint-rule-aws': ['aws-access-key-id', 'aws-temporary-access-key-id', 'aws-secret-access-key'],
  'secretlint-rule-gcp': ['gcp-service-account-private-key'],
  'secretlint-rule-privatekey': [
    'rsa-private-key',
    'ec-private-key',
    'dsa-private-key',
    'pkcs8-private-key',
    'pkcs8-encrypted-private-key',
    'openssh-private-key',
    'pgp-private-key-block',
  ],
  'secretlint-rule-npm': ['npm-access-token', 'npmrc-auth-token'],
  'secretlint-rule-basicauth': ['generic-url-password'],
  'secretlint-rule-slack': ['slack-bot-token', 'slack-user-token', 'slack-app-token', 'slack-webhook-url'],
  'secretlint-rule-sendgrid': ['sendgrid-api-key'],
  'secretlint-rule-shopify': [
    'shopify-access-token',
    'shopify-custom-app-token',
    'shopify-private-app-password',
    'shopify-shared-secret',
  ],
  'secretlint-rule-stripe': ['stripe-secret-key', 'stripe-restricted-key', 'stripe-test-secret-key'],
  'secretlint-rule-github': [
    'github-personal-access-token',
    'github-oauth-access-token',
    'github-user-to-server-token',
    'github-server-to-server-token',
    'github-refresh-token',
    'github-fine-grained-token',
  ],
  'secretlint-rule-gitlab': ['gitlab-personal-access-token'],
  'secretlint-rule-grafana': ['grafana-cloud-token', 'grafana-service-account-token'],
  'secretlint-rule-openai': [
    'openai-api-key',
    'openai-project-key',
    'openai-service-account-key',
    'openai-admin-key',
  ],
  'secretlint-rule-anthropic': ['anthropic-api-key'],
  'secretlint-rule-groq': ['groq-api-key'],
  'secretlint-rule-huggingface': ['huggingface-access-token'],
  'secretlint-rule-linear': ['linear-api-key'],
  'secretlint-rule-notion': ['notion-integration-token'],
  'secretlint-rule-1password': ['onepassword-service-account-token'],
  'secretlint-rule-database-connection-string': [
    'postgres-connection-password',
    'mysql-connection-password',
    'mongodb-connection-password',
  ],
  'secretlint-rule-hashicorp-vault': [
    'hashicorp-vault-service-token',
    'hashicorp-vault-batch-token',
    'hashicorp-vault-recovery-token',
  ],
  'secretlint-rule-vercel': ['vercel-prefixed-token', 'vercel-token'],
  'secretlint-rule-databricks': ['databricks-access-token'],
  'secretlint-rule-docker': ['docker-hub-personal-access-token'],
  'secretlint-rule-figma': ['figma-personal-access-token'],
  'secretlint-rule-cloudflare': [
    'cloudflare-scannable-token',
    'cloudflare-api-token',
    'cloudflare-global-api-key',
  ],
  'secretlint-rule-tailscale': ['tailscale-auth-key'],
};

interface KindScore {
  planted: number;
  svcRecall: number;
  secretlintRecall: number;
  svcPrecision: number;
  secretlintPrecision: number;
}

/** Recall over the planted values of `rules`; precision over the findings `ownFinding` says are of this kind. */
function kindScore(
  rules: readonly string[],
  svc: Scored,
  svcFindings: readonly Found[],
  sl: Scored,
  slFindings: readonly Found[],
  slRule: string,
): KindScore {
  const ofKind = (p: { rule?: string }) => p.rule !== undefined && rules.includes(p.rule);
  const planted = svc.matches.filter((m) => ofKind(m.planted)).length + svc.missed.filter(ofKind).length;
  const svcFound = svcFindings.filter((f) => rules.includes(f.rule));
  const slFound = slFindings.filter((f) => f.rule === slRule);
  const svcTrue = svc.matches.filter((m) => rules.includes(m.found.rule));
  const slTrue = sl.matches.filter((m) => m.found.rule === slRule);
  const ratio = (a: number, b: number) => (b ? a / b : 1);
  return {
    planted,
    svcRecall: ratio(svc.matches.filter((m) => ofKind(m.planted)).length, planted),
    secretlintRecall: ratio(sl.matches.filter((m) => ofKind(m.planted)).length, planted),
    svcPrecision: ratio(svcTrue.length, svcFound.length),
    secretlintPrecision: ratio(slTrue.length, slFound.length),
  };
}

export const scanAccuracy: Benchmark = {
  name: 'scan-accuracy',
  description:
    'recall and precision of svc and secretlint (recommended preset) on the synthetic corpus, per category and per kind secretlint covers',
  async run() {
    return withTempDir('corpus', async (root) => {
      const corpus = writeCorpus(root);
      progress(`corpus: ${corpus.files.length} files, ${corpus.planted.length} planted values`);
      const scan = await scanFolder(root, { rules: SCANNER_RULES, key: new Uint8Array(32) });
      const svcFindings = asFound(scan.findings);
      const slFindings: Found[] = [];
      for (const file of corpus.files) {
        const content = readFileSync(join(root, file), 'utf8');
        for (const f of await secretlint(file, content)) {
          slFindings.push({ file, category: 'secret', ...f });
        }
      }
      const svc = score(corpus, svcFindings);
      const sl = score(corpus, slFindings);

      const metrics: Metric[] = [];
      const checks: Check[] = [];
      for (const category of ['secret', 'pii'] as const) {
        const own = svc.byCategory[category];
        const theirs = sl.byCategory[category];
        metrics.push(
          {
            key: `svc_${category}_recall`,
            label: `svc ${category} recall (${own.planted} planted)`,
            value: own.recall,
            unit: '',
          },
          {
            key: `svc_${category}_precision`,
            label: `svc ${category} precision (${own.found} found)`,
            value: own.precision,
            unit: '',
          },
          {
            key: `secretlint_${category}_recall`,
            label: `secretlint ${category} recall`,
            value: theirs.recall,
            unit: '',
          },
          {
            key: `secretlint_${category}_precision`,
            label: `secretlint ${category} precision (${theirs.found} found)`,
            value: theirs.precision,
            unit: '',
          },
        );
      }
      let worst = Infinity;
      let worstKind = '';
      for (const [slRule, rules] of Object.entries(SECRETLINT_KINDS)) {
        const k = kindScore(rules, svc, svcFindings, sl, slFindings, slRule);
        const kind = slRule.replace('secretlint-rule-', '');
        metrics.push(
          {
            key: `${kind}_recall_svc`,
            label: `${kind} (${k.planted}): recall svc`,
            value: k.svcRecall,
            unit: '',
          },
          {
            key: `${kind}_recall_secretlint`,
            label: `${kind}: recall secretlint`,
            value: k.secretlintRecall,
            unit: '',
          },
          { key: `${kind}_precision_svc`, label: `${kind}: precision svc`, value: k.svcPrecision, unit: '' },
          {
            key: `${kind}_precision_secretlint`,
            label: `${kind}: precision secretlint`,
            value: k.secretlintPrecision,
            unit: '',
          },
        );
        if (k.svcRecall - k.secretlintRecall < worst) {
          worst = k.svcRecall - k.secretlintRecall;
          worstKind = kind;
        }
      }
      checks.push(
        atLeast(
          'recall_margin',
          `svc recall minus secretlint's, least over its kinds (${worstKind})`,
          worst,
          0,
        ),
        atLeast('svc_secret_recall', 'svc secret recall', svc.byCategory.secret.recall, 0.95),
        atLeast('svc_pii_recall', 'svc personal data recall', svc.byCategory.pii.recall, 0.9),
      );
      return {
        metrics,
        checks,
        notes: [
          `corpus: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${corpus.planted.filter((p) => p.category === 'secret').length} secrets and ${corpus.planted.filter((p) => p.category === 'pii').length} personal values planted, ${corpus.decoys.length} decoys`,
          'secretlint: @secretlint/core lintSource with @secretlint/secretlint-rule-preset-recommend, file by file; it has no personal-data rules',
          "a kind is one secretlint rule and the svc rules whose formats plant that kind; precision per kind counts each tool's own findings of that rule",
        ],
      };
    });
  },
};
