// The plan of a scan, as data: what each file found gets, and why, in words that name each kind as
// what it is. A log's secret is a leak to replace, not a setting to move into the vault; a
// password's hash is checked against, and no program reads it from the vault.
import { describe, expect, it } from 'vitest';
import { planOf } from '../../src/backend/scan-plan.ts';
import type { StoredScan } from '../../src/backend/scan-store.ts';

const finding = (file: string, type: string, category: 'secret' | 'pii', n: number) => ({
  file,
  line: n,
  column: 1,
  category,
  type,
  rule: type.toLowerCase(),
  confidence: 0.9,
  fingerprint: n.toString(16).padStart(32, '0'),
  preview: '****',
});

const scan: StoredScan = {
  scan_id: 'scan_0123456789abcdef',
  project: '/p',
  root: '/p',
  created_at: '2026-01-01T00:00:00.000Z',
  scanned_by: 'svc scan',
  files_scanned: 2,
  bytes_scanned: 20,
  findings: [
    finding('logs/app.log', 'GITHUB_TOKEN', 'secret', 1),
    finding('logs/app.log', 'EMAIL', 'pii', 2),
    finding('src/app.ts', 'GITHUB_TOKEN', 'secret', 3),
    finding('src/app.ts', 'IP_ADDRESS', 'pii', 4),
    finding('db/seeds.rb', 'PASSWORD_HASH', 'secret', 5),
  ],
  silenced: { false_positive: 0, accepted_risk: 0 },
  skipped: [],
};

describe('planOf', () => {
  const plan = planOf(scan);

  it('names secrets and personal data each as what they are', () => {
    const reasons = plan.items.filter((i) => i.kind === 'rule').map((i) => [i.path, i.reason]);
    expect(reasons).toEqual([
      ['./logs/app.log', 'holds secrets (GITHUB_TOKEN) and personal data (EMAIL): agents read a clean copy'],
      [
        './src/app.ts',
        'holds secrets (GITHUB_TOKEN) and personal data (IP_ADDRESS): agents read a clean copy',
      ],
      ['./db/seeds.rb', 'holds secrets (PASSWORD_HASH): agents read a clean copy'],
    ]);
  });

  it("moves a program's secret into the vault, never a log's nor a password's hash", () => {
    expect(plan.items.filter((i) => i.kind === 'vault').map((i) => i.path)).toEqual(['./src/app.ts']);
  });
});
