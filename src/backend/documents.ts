// Documents compute: sections above the caller's clearance are withheld before the answering
// step runs, so no withheld text can reach it; the default answerer is extractive.
import { nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import type { Receipt } from './chains.ts';
import { sha256Hex } from './signer.ts';
import { countDecision } from './usage.ts';
import { CLEARANCE_LEVELS } from './vocabulary.ts';

export { CLEARANCE_LEVELS };

export type Clearance = (typeof CLEARANCE_LEVELS)[number];

export interface Section {
  title: string;
  text: string;
  classification?: Clearance | undefined;
}

/** Anything that turns a question and the sections it may see into an answer. */
export type Answerer = (question: string, sections: readonly Section[]) => string;

// Ordered strongest first: the first level whose pattern matches a section's title or text wins.
const CLASSIFIER_RULES: [Clearance, RegExp][] = [
  [
    'secret',
    /\b(top secret|secret|password|passphrase|private key|api[ _-]?key|credentials?|access token)\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\b(ndp_|ndca-|sk-|AKIA)[A-Za-z0-9_-]{8,}/i,
  ],
  [
    'confidential',
    /\b(confidential|salary|salaries|compensation|payroll|acquisition|merger|layoffs?|medical|diagnosis|social security|ssn|passport|bank account|iban)\b|\b\d{3}-\d{2}-\d{4}\b|\b(?:\d[ -]?){13,16}\b/i,
  ],
  [
    'internal',
    /\b(internal|roadmap|draft|not for distribution|do not share|employees? only|strategy|forecast)\b/i,
  ],
];

/** How the service classifies a section that carries no `classification`: by its words. */
export function classifySection(section: Pick<Section, 'title' | 'text'>): Clearance {
  const haystack = `${section.title}\n${section.text}`;
  for (const [level, pattern] of CLASSIFIER_RULES) if (pattern.test(haystack)) return level;
  return 'public';
}

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from has have how i in is it its me my of on or our that the their them they this to was we what when where which who why will with you your'.split(
    ' ',
  ),
);

function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => t.length > 1 && !STOPWORDS.has(t));
}

function stem(term: string): string {
  return term.replace(/(ing|ed|es|s)$/, '') || term;
}

/** Extractive answerer: the (at most three) sentences sharing the most terms with the question. */
export const extractiveAnswerer: Answerer = (question, sections) => {
  const wanted = new Set(terms(question).map(stem));
  const sentences = sections.flatMap((s) =>
    s.text
      .split(/(?<=[.!?])\s+|\n+/)
      .map((t) => t.trim())
      .filter(Boolean),
  );
  const scored = sentences
    .map((sentence, order) => ({
      sentence,
      order,
      score: new Set(
        terms(sentence)
          .map(stem)
          .filter((t) => wanted.has(t)),
      ).size,
    }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, 3)
    .sort((a, b) => a.order - b.order);
  return scored.map((s) => s.sentence).join(' ');
};

export interface DocumentsInput {
  question: string;
  clearance: Clearance;
  sections: Section[];
}

export interface DocumentsResult {
  decision: 'allow' | 'degrade' | 'deny';
  answer: string;
  proof: Receipt & { id: string };
  proof_id: string;
  sections: {
    index: number;
    title: string;
    classification: Clearance;
    classified_by: 'caller' | 'service';
    released: boolean;
  }[];
  withheld_count: number;
}

export async function computeDocuments(
  ctx: Context,
  caller: OrgCaller,
  input: DocumentsInput,
  answerer: Answerer = extractiveAnswerer,
): Promise<DocumentsResult> {
  const ceiling = CLEARANCE_LEVELS.indexOf(input.clearance);
  const sections = input.sections.map((section, index) => {
    const classification = section.classification ?? classifySection(section);
    return {
      index,
      title: section.title,
      classification,
      classified_by: section.classification ? ('caller' as const) : ('service' as const),
      released: CLEARANCE_LEVELS.indexOf(classification) <= ceiling,
    };
  });
  // Filter first: the answerer receives only released sections, never the withheld ones.
  const released = input.sections.filter((_, i) => sections[i]!.released);
  const withheldCount = sections.length - released.length;
  const decision = released.length === 0 ? 'deny' : withheldCount === 0 ? 'allow' : 'degrade';
  const answer = released.length === 0 ? '' : answerer(input.question, released);
  const receipt = await ctx.store.write(async () => {
    await countDecision(ctx, caller.orgId);
    return await ctx.chains.append('service', {
      kind: 'documents.compute',
      org_id: caller.orgId,
      signed_at: nowIso(ctx),
      body: {
        org_id: caller.orgId,
        decision,
        clearance: input.clearance,
        question_sha256: sha256Hex(input.question),
        answer_sha256: sha256Hex(answer),
        sections: sections.map((s) => ({
          index: s.index,
          classification: s.classification,
          released: s.released,
        })),
      },
    });
  });
  return {
    decision,
    answer,
    proof: { ...receipt, id: receipt.receipt_id },
    proof_id: receipt.receipt_id,
    sections,
    withheld_count: withheldCount,
  };
}
