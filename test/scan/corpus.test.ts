// The scanner against a synthetic corpus (corpus.ts): realistic files with secrets and personal data
// planted at known places and hard negatives beside them, scanned as `svc scan` scans a folder. Each
// category's recall and precision must reach its floor; a failure names what was missed and what was
// found where nothing was planted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCANNER_RULES, scanFolder } from '../../src/backend/scan-folder.ts';
import { DETECTION_RULES } from '../../src/scan/rules.ts';
import { asFound, score, writeCorpus, type Corpus, type Scored } from './corpus.ts';

/** The floors the issue sets: recall and precision of each category. */
const FLOORS = { secret: 0.95, pii: 0.9 } as const;

let root: string;
let corpus: Corpus;
let scored: Scored;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-corpus-'));
  corpus = writeCorpus(root);
  const scan = await scanFolder(root, { rules: SCANNER_RULES, key: new Uint8Array(32) });
  scored = score(corpus, asFound(scan.findings));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What went wrong, for the failure message: the figures, then the misses and false positives. */
function report(category: keyof typeof FLOORS): string {
  const s = scored.byCategory[category];
  const missed = scored.missed
    .filter((p) => p.category === category)
    .map(
      (p) =>
        `  missed ${p.type}${p.rule ? ` (${p.rule})` : ''} as ${p.form} at ${p.file}:${p.line}:${p.column}`,
    );
  const extra = scored.falsePositives
    .filter((f) => f.category === category)
    .map(
      (f) =>
        `  found ${f.rule} at ${f.file}:${f.line}:${f.column}${f.decoy ? ` on a decoy (${f.decoy})` : ''}`,
    );
  return [
    `${category}: recall ${s.recall.toFixed(3)} (${s.truePositives}/${s.planted}), precision ${s.precision.toFixed(3)} (${s.truePositives}/${s.found})`,
    ...missed,
    ...extra,
  ].join('\n');
}

describe('the detection corpus', () => {
  it('plants many values of every kind, and hard negatives beside them', () => {
    const types = (category: string) =>
      new Set(corpus.planted.filter((p) => p.category === category).map((p) => p.type));
    expect(corpus.planted.filter((p) => p.category === 'secret').length).toBeGreaterThan(500);
    expect(corpus.planted.filter((p) => p.category === 'pii').length).toBeGreaterThan(1000);
    expect([...types('pii')].sort()).toEqual([
      'CARD_NUMBER',
      'DATE_OF_BIRTH',
      'EMAIL',
      'IBAN',
      'IP_ADDRESS',
      'PERSON_NAME',
      'PHONE',
      'US_SSN',
    ]);
    expect(types('secret').size).toBeGreaterThan(150);
    expect(corpus.decoys.length).toBeGreaterThan(500);
  });

  it('writes the same corpus from the same seed', () => {
    const again = mkdtempSync(join(tmpdir(), 'svc-corpus-'));
    try {
      expect(writeCorpus(again)).toEqual(corpus);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it('names each secret it finds by the kind planted there (the score itself leaves secret types out, as the benchmark scores secretlint with it, whose names differ)', () => {
    // A rule that only finds encoded values is named by the rule that finds the secret in them.
    const namedByWhatTheyEncode = new Set(DETECTION_RULES.filter((r) => r.decodedOnly).map((r) => r.id));
    const misnamed = scored.matches
      .filter(
        (m) =>
          m.planted.category === 'secret' &&
          m.planted.rule !== undefined &&
          !namedByWhatTheyEncode.has(m.planted.rule) &&
          m.found.rule !== m.planted.rule,
      )
      .map((m) => `${m.planted.rule} found as ${m.found.rule} at ${m.planted.file}:${m.planted.line}`);
    expect(misnamed).toEqual([]);
  });

  it.each(Object.entries(FLOORS))(
    'finds %s values with recall and precision at their floor',
    (category, floor) => {
      const s = scored.byCategory[category as keyof typeof FLOORS];
      const message = report(category as keyof typeof FLOORS);
      expect(s.recall, message).toBeGreaterThanOrEqual(floor);
      expect(s.precision, message).toBeGreaterThanOrEqual(floor);
    },
  );
});
