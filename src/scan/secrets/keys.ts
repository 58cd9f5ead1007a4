// Private keys and signed tokens: PEM blocks (RFC 7468 labels), OpenSSH's own format, PuTTY key
// files, and JSON Web Tokens (RFC 7519). Public keys and certificates are meant to be shared and
// have no rule.

import { notAfter, type DetectionRule } from '../detect.ts';
import { bitsPerChar, secretRule } from './rule.ts';

/**
 * RFC 7468 section 2: `-----BEGIN label-----`, base64 lines (and, in the older OpenSSL form,
 * `Proc-Type:` headers), `-----END label-----`. Escaped newlines (`\n`) count as newlines, for keys
 * pasted into JSON or env files. The body must read as random, not as `AAAA...`.
 */
function pem(id: string, type: string, label: string, keyword: string): DetectionRule {
  return secretRule({
    id,
    type,
    keywords: [keyword],
    // The body never runs past another block's start: a text of many unfinished blocks would
    // otherwise have each search 64 KiB for its end (seconds a megabyte).
    pattern: new RegExp(
      `-----BEGIN ${label}-----(?:[A-Za-z0-9+/=\\s:,\\\\]|-(?!----BEGIN ))${'{64,65536}?'}-----END ${label}-----`,
      'g',
    ),
    confidence: 0.99,
    check: (value) => bitsPerChar(value.replace(/-----[A-Z ]+-----|\\n|\s/g, '')) >= 4.5,
  });
}

export const KEY_RULES: readonly DetectionRule[] = [
  pem('rsa-private-key', 'PRIVATE_KEY', 'RSA PRIVATE KEY', 'begin rsa private key'),
  pem('ec-private-key', 'PRIVATE_KEY', 'EC PRIVATE KEY', 'begin ec private key'),
  pem('dsa-private-key', 'PRIVATE_KEY', 'DSA PRIVATE KEY', 'begin dsa private key'),
  pem('pkcs8-private-key', 'PRIVATE_KEY', 'PRIVATE KEY', 'begin private key'),
  pem('pkcs8-encrypted-private-key', 'PRIVATE_KEY', 'ENCRYPTED PRIVATE KEY', 'begin encrypted private key'),
  pem('openssh-private-key', 'PRIVATE_KEY', 'OPENSSH PRIVATE KEY', 'begin openssh private key'),
  pem('pgp-private-key-block', 'PRIVATE_KEY', 'PGP PRIVATE KEY BLOCK', 'begin pgp private key block'),
  // A PEM private key written in base64, whole: a Kubernetes TLS Secret's `tls.key`, a kubeconfig's
  // `client-key-data`, a `SSH_PRIVATE_KEY_B64` variable. `-----BEGIN ` encodes to `LS0tLS1CRUdJTi`
  // at a value's start; the decoded text must open a private key's block (a certificate's does not)
  // and its body read as random.
  secretRule({
    id: 'base64-private-key',
    type: 'PRIVATE_KEY',
    keywords: ['ls0tls1crudjti'],
    pattern: /(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{80,40000}={0,2}(?![A-Za-z0-9+/=])/g,
    confidence: 0.95,
    check: (value) => {
      let pem: string;
      try {
        pem = atob(value.slice(0, value.length - (value.length % 4)));
      } catch {
        return false;
      }
      const block =
        /^-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----/.exec(pem);
      if (!block) return false;
      const body = pem.slice(block[0].length).replace(/-----END [A-Z ]+-----[\s\S]*$/, '');
      return bitsPerChar(body.replace(/\s/g, '')) >= 4.5;
    },
  }),
  // PuTTY's .ppk: a header naming the algorithm, then `Private-Lines: n` and the key in base64.
  secretRule({
    id: 'putty-private-key',
    type: 'PRIVATE_KEY',
    keywords: ['putty-user-key-file-'],
    pattern:
      /PuTTY-User-Key-File-[23]: [a-z0-9-]{3,40}\r?\n(?:[^\r\n]{0,2000}\r?\n){1,80}?Private-Lines: \d{1,3}\r?\n(?<value>[A-Za-z0-9+/=\r\n]{40,20000})/g,
    confidence: 0.95,
    check: (value) => bitsPerChar(value.replace(/\s/g, '')) >= 4.5,
  }),
  // A JWT: base64url header `{"` (so `eyJ`), payload `{"`, and a signature. Unsigned ones (alg
  // none, nothing after the second dot) grant nothing and are left out.
  secretRule({
    id: 'json-web-token',
    type: 'JWT',
    keywords: ['eyj'],
    pattern: new RegExp(
      String.raw`${notAfter('A-Za-z0-9_-')}eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,8000}\.[A-Za-z0-9_-]{20,2000}(?![A-Za-z0-9_-])`,
      'g',
    ),
    confidence: 0.75,
    check: (value) => jwtHeaderHasAlg(value.slice(0, value.indexOf('.'))),
  }),
];

/** Whether a JWT's first part decodes to a JSON object naming an algorithm (RFC 7515 section 4.1.1). */
function jwtHeaderHasAlg(part: string): boolean {
  try {
    const header: unknown = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
    return (
      typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string'
    );
  } catch {
    return false;
  }
}
