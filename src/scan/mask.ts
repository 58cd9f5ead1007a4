// Masking a secret out of text: every form of it the text may carry is replaced by a marker. Pure
// (no I/O, no node: imports), shared by the service's answers from external APIs and, later, the
// scanner's redactions and `svc run`'s output.
//
// Known limit, taken up by the hardening work: only the secret as given and its base64 form are
// masked, and only whole occurrences; a cut copy, or one re-encoded (JSON-escaped, URL-encoded),
// is not.

export const MASK = '[credential]';

/** Secrets shorter than this are not masked: they would match everywhere and hide nothing. */
export const MIN_MASKED_LENGTH = 4;

/** The forms of a secret that are masked: as given, and base64 (an HTTP Basic credential carries it so). */
export function maskedForms(secret: string): string[] {
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(secret)));
  return [secret, base64].filter((form) => form.length >= MIN_MASKED_LENGTH);
}

/** `text` with every occurrence of every masked form of `secret` replaced by MASK. */
export function maskSecret(text: string, secret: string): string {
  let out = text;
  for (const form of maskedForms(secret)) out = out.split(form).join(MASK);
  return out;
}
