// Masking a secret out of text: every occurrence of each form, short secrets left alone, and the
// known limits stated as what the function does today.
import { describe, expect, it } from 'vitest';
import { MASK, maskSecret, maskedForms } from '../../src/scan/mask.ts';

describe('maskSecret', () => {
  it.each([
    [
      'the secret as given, every occurrence',
      'a sk-live-123 b sk-live-123',
      'sk-live-123',
      `a ${MASK} b ${MASK}`,
    ],
    ['its base64 form (HTTP Basic)', `Basic ${btoa('user:pw-9')}`, 'user:pw-9', `Basic ${MASK}`],
    [
      'non-ASCII secrets in both forms',
      `x ${btoa(String.fromCharCode(...new TextEncoder().encode('pässwörd')))} pässwörd`,
      'pässwörd',
      `x ${MASK} ${MASK}`,
    ],
    ['text without the secret is unchanged', 'nothing here', 'sk-live-123', 'nothing here'],
    ['a secret shorter than four characters is not masked', 'abc abc', 'abc', 'abc abc'],
  ])('%s', (_name, text, secret, expected) => {
    expect(maskSecret(text, secret)).toBe(expected);
  });

  it('masks the base64 form as Buffer writes it', () => {
    const secret = 'token-\u00e9-\u{1F600}';
    expect(maskedForms(secret)).toEqual([secret, Buffer.from(secret).toString('base64')]);
  });
});
