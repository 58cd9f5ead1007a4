// What `svc scan` prints of the files it did not scan, and when a scan that read nothing is a
// failure: cases a test running as root cannot make on disk (a file this user may not open).
import { describe, expect, it } from 'vitest';
import { nothingReadable } from '../../src/backend/scan.ts';
import { progressBar, scanJson, scanText } from '../../src/cli/scan-report.ts';
import type { StoredScan } from '../../src/backend/scan-store.ts';

function scanOf(files_scanned: number, skipped: StoredScan['skipped']): StoredScan {
  return {
    scan_id: 'scan_0123456789abcdef',
    project: '/p',
    root: '/p',
    created_at: '2026-01-01T00:00:00.000Z',
    scanned_by: 'svc scan',
    files_scanned,
    bytes_scanned: files_scanned * 10,
    findings: [],
    silenced: { false_positive: 0, accepted_risk: 0 },
    skipped,
  };
}

const unreadable = (file: string) => ({ file, reason: 'unreadable' as const });

describe('nothingReadable', () => {
  it.each([
    [
      'one file this user may not open',
      'key.pem',
      scanOf(0, [unreadable('key.pem')]),
      /svc cannot read key\.pem;/,
    ],
    [
      'the path itself (a folder it cannot list)',
      'locked',
      scanOf(0, [unreadable('.')]),
      /svc cannot read locked;/,
    ],
    [
      'every file of a folder',
      'src',
      scanOf(0, [unreadable('a'), unreadable('b'), { file: 'c.png', reason: 'binary' }]),
      /svc cannot read 2 files in src \(a, b\);/,
    ],
    [
      'many files: the first five named',
      'big',
      scanOf(0, ['1', '2', '3', '4', '5', '6'].map(unreadable)),
      /svc cannot read 6 files in big \(1, 2, 3, 4, 5, …\);/,
    ],
  ])('fails a scan that read nothing: %s', (_, path, scan, message) => {
    const failure = nothingReadable(path, scan);
    expect(failure?.code).toBe('invalid_request');
    expect(failure?.message).toMatch(message);
    expect(failure?.toBody()).toMatchObject({
      scan_id: scan.scan_id,
      files_scanned: 0,
      skipped: scan.skipped,
    });
  });

  it.each([
    ['some files were scanned', scanOf(2, [unreadable('a')])],
    ['an empty folder', scanOf(0, [])],
    ['a binary file alone', scanOf(0, [{ file: 'logo.png', reason: 'binary' }])],
    ['files the gate keeps from an agent', scanOf(0, [{ file: '.env', reason: 'protected' }])],
  ])('does not fail when %s', (_, scan) => {
    expect(nothingReadable('x', scan)).toBeUndefined();
  });
});

describe('scanText and scanJson', () => {
  const inProject = (file: string) => `proj/${file}`;
  const scan = scanOf(3, [
    { file: 'logo.png', reason: 'binary' },
    unreadable('secrets/key.pem'),
    { file: 'dump.sql', reason: 'too_large' },
  ]);

  it('names each file not scanned but the binaries, and counts them all by reason', () => {
    expect(scanText(scan, inProject).split('\n')).toEqual([
      'secrets/key.pem: not scanned (svc cannot read it)',
      'dump.sql: not scanned (over 100 MiB)',
      '0 finding(s) in 3 file(s), 30 bytes; 3 not scanned (1 binary, 1 unreadable, 1 too large) (scan scan_0123456789abcdef)',
    ]);
  });

  it('after a protected file, the command that names its rule, by a path the shell reads back as it is', () => {
    const held = scanOf(1, [
      { file: "my notes/it's.md", reason: 'protected' },
      { file: 'b.md', reason: 'protected' },
    ]);
    expect(scanText(held, inProject).split('\n')).toEqual([
      "my notes/it's.md: not scanned (a rule keeps it from agents, or asks first and got no yes)",
      'b.md: not scanned (a rule keeps it from agents, or asks first and got no yes)',
      `why: svc rules explain 'proj/my notes/it'\\''s.md' --for search names the rule`,
      '0 finding(s) in 1 file(s), 10 bytes; 2 not scanned (2 protected) (scan scan_0123456789abcdef)',
    ]);
    // A name that would add a line of its own is written out, as in the lines before it.
    const named = scanText(scanOf(1, [{ file: 'a.md\nok: allowed', reason: 'protected' }]), inProject);
    expect(named).toContain("why: svc rules explain 'proj/a.md\\x0aok: allowed' --for search");
  });

  it('after findings, says what a person does next: the plan, or a verdict on one by its fingerprint', () => {
    const found: StoredScan = {
      ...scanOf(1, []),
      findings: [
        {
          file: 'config/app.yml',
          line: 2,
          column: 17,
          category: 'secret',
          type: 'OPENAI_KEY',
          rule: 'openai-project-key',
          confidence: 0.95,
          fingerprint: '0'.repeat(32),
          preview: 'sk-p************ (48 chars)',
        },
      ],
    };
    expect(scanText(found, inProject).split('\n')).toEqual([
      `config/app.yml:2:17  secret OPENAI_KEY (openai-project-key, 0.95)  sk-p************ (48 chars)  ${'0'.repeat(32)}`,
      '1 finding(s) in 1 file(s), 10 bytes (scan scan_0123456789abcdef)',
      'next: svc plan --scan scan_0123456789abcdef proposes rules, seals and vault moves for them; svc scan feedback mark FINGERPRINT false_positive leaves one out of later scans',
    ]);
    // Outside the scanned project, the verdict names it: else it would go to the project the person is in.
    const elsewhere = scanText({ ...found, project: '/home/ann/my shop' }, inProject, true);
    expect(elsewhere).toContain(
      "svc scan feedback mark FINGERPRINT false_positive --project '/home/ann/my shop' leaves one out",
    );
  });

  it('--json carries every skipped file with its reason', () => {
    expect(scanJson(scan)).toEqual({
      findings: [],
      files_scanned: 3,
      bytes_scanned: 30,
      scan_id: 'scan_0123456789abcdef',
      silenced: 0,
      skipped: scan.skipped,
    });
  });
});

describe('progressBar', () => {
  const MiB = 1048576;
  it('fills by bytes, and marks a whole the walk is still finding with +', () => {
    expect(progressBar({ files: 0, bytes: 0, of: { files: 3, bytes: 4 * MiB, final: false } })).toBe(
      'svc scan [------------------------]   0%  0 of 3+ files, 0.0 of 4.0+ MiB',
    );
    expect(progressBar({ files: 1, bytes: MiB, of: { files: 3, bytes: 4 * MiB, final: true } })).toBe(
      'svc scan [######------------------]  25%  1 of 3 files, 1.0 of 4.0 MiB',
    );
    expect(progressBar({ files: 3, bytes: 4 * MiB, of: { files: 3, bytes: 4 * MiB, final: true } })).toBe(
      'svc scan [########################] 100%  3 of 3 files, 4.0 of 4.0 MiB',
    );
  });

  it('counts files when every file is empty', () => {
    expect(progressBar({ files: 1, bytes: 0, of: { files: 2, bytes: 0, final: true } })).toContain(
      ' 50%  1 of 2 files',
    );
  });
});
