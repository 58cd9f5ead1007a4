// Documents compute: withheld sections never reach the answering step, whatever it is.
import { ops } from '../../src/backend/operations/index.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers.ts';
import {
  CLEARANCE_LEVELS,
  classifySection,
  computeDocuments,
  extractiveAnswerer,
  type Section,
} from '../../src/backend/documents.ts';
import { authenticate, requireOrgKey } from '../../src/backend/credentials.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('classifySection', () => {
  it.each([
    ['Team lunch is on Friday.', 'public'],
    ['Draft roadmap for next year.', 'internal'],
    ['Her salary is 120k.', 'confidential'],
    ['SSN 123-45-6789 on file.', 'confidential'],
    ['The admin password is hunter2.', 'secret'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'secret'],
  ])('%s -> %s', (text, level) => {
    expect(classifySection({ title: 'note', text })).toBe(level);
  });
});

describe('extractiveAnswerer', () => {
  it('picks the sentences that share the question’s terms, in document order', () => {
    const answer = extractiveAnswerer('Where is the offsite held?', [
      { title: 'a', text: 'Budget is flat. The offsite is held in Porto.' },
      { title: 'b', text: 'Parking is free. Offsite dates are in June.' },
    ]);
    expect(answer).toBe('The offsite is held in Porto. Offsite dates are in June.');
  });
});

describe('computeDocuments', () => {
  it('hands the answerer only released sections, for every clearance and mix', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    // The core function, not the operation: only it takes an answerer to spy on.
    const caller = requireOrgKey(await authenticate(h.service.ctx, `Bearer ${org.api_key}`), 'governance');
    const sections: Section[] = CLEARANCE_LEVELS.flatMap((level, i) => [
      { title: `${level} a`, text: `Fact ${i} alpha about the launch.`, classification: level },
      { title: `${level} b`, text: `Fact ${i} beta about the launch.`, classification: level },
    ]);
    for (const clearance of CLEARANCE_LEVELS) {
      const seen: Section[] = [];
      const result = await computeDocuments(
        h.service.ctx,
        caller,
        { question: 'launch', clearance, sections },
        (_q, released) => {
          seen.push(...released);
          return released.map((s) => s.text).join(' ');
        },
      );
      const allowedLevels = CLEARANCE_LEVELS.slice(0, CLEARANCE_LEVELS.indexOf(clearance) + 1);
      expect(seen.every((s) => allowedLevels.includes(s.classification!))).toBe(true);
      expect(seen).toHaveLength(allowedLevels.length * 2);
      for (const withheld of sections.filter((s) => !allowedLevels.includes(s.classification!))) {
        expect(result.answer).not.toContain(withheld.text);
      }
      expect(result.decision).toBe(clearance === 'secret' ? 'allow' : 'degrade');
      expect(await h.service.invoke(ops.verifyProof, undefined, { proof_id: result.proof_id })).toMatchObject(
        { authentic: true },
      );
    }
  });
});
