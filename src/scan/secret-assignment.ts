// A narrow, interim check for credentials written into code: a line that assigns a long,
// random-looking value to a name that says it is a secret (password, secret, token, API key), or
// that opens a PEM private key. It looks at one line at a time and never returns the value. The
// scanner's detectors (formats of known providers, personal data) replace it when they land.
// Pure: no I/O, no node: imports.

export type SecretKind = 'private_key' | 'assignment';

export interface SecretFinding {
  kind: SecretKind;
  /** The name the value is assigned to (`db_password`), or the PEM label; never the value. */
  name: string;
  /** How long the value is, in characters (0 for a key header). */
  length: number;
}

const PEM_PRIVATE_KEY = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----/;

/**
 * A name that says it holds a secret, then `=`, `:`, `:=` or `=>`, then a value quoted or bare.
 * The name is a whole identifier (`apiKey`, `DB_PASSWORD`, `"client_secret"`).
 */
const ASSIGNMENT =
  /(["']?)([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*)\1\s*(?::=|=>|=|:)\s*(["'`]?)([^\s"'`,;]+)\3/gi;

/** Values shorter than this are too short to be a generated credential (and usually placeholders). */
export const MIN_SECRET_LENGTH = 16;
/** Shannon entropy per character below which a value reads as words or a pattern, not a key. */
export const MIN_BITS_PER_CHAR = 3.5;

/** Shannon entropy of a string, in bits per character. */
export function bitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A value that reads as a reference to a secret rather than the secret (`process.env.X`, `${X}`). */
function isReference(value: string): boolean {
  return /^(process\.env|os\.environ|env\.|\$\{?|getenv|<|%|\{\{)/i.test(value);
}

/** Credentials that look written into one line of code. */
export function findSecretAssignments(line: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  const pem = PEM_PRIVATE_KEY.exec(line);
  if (pem) found.push({ kind: 'private_key', name: pem[1]!, length: 0 });
  for (const match of line.matchAll(ASSIGNMENT)) {
    const name = match[2]!;
    const value = match[4]!;
    if (value.length < MIN_SECRET_LENGTH || isReference(value)) continue;
    if (bitsPerChar(value) < MIN_BITS_PER_CHAR) continue;
    found.push({ kind: 'assignment', name, length: value.length });
  }
  return found;
}
