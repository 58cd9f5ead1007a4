// Email addresses: a local part, `@`, and a domain whose last label is a plausible top-level domain.
// Addresses that name no one are left: documentation domains, typed placeholders, service and
// no-reply senders, and file names such as `icon@2x.png`. Pure.

import { notAfter, type DetectionRule } from '../detect.ts';

/**
 * Domains reserved for documentation and testing (RFC 2606, RFC 6761): `example.com/.net/.org`,
 * the `.example`, `.test`, `.invalid`, `.localhost` and `.local` names, and `localhost`; and the
 * domains commonly typed as placeholders.
 */
const PLACEHOLDER_DOMAIN =
  /(?:^|\.)(?:example\.(?:com|net|org)|[^.]+\.(?:example|test|invalid|localhost|local)|localhost|domain\.com|email\.tld|yourdomain\.com|yourcompany\.com|company\.com|acme\.(?:com|corp)|foo\.(?:com|bar)|test\.com)$/;

/** Local parts typed as placeholders, and senders that are a service rather than a person. */
const NOT_A_PERSON =
  /^(?:user|username|name|email|someone|somebody|nobody|you|your\.?name|yourname|me|foo|bar|foo\.bar|test|tester|john\.?doe|jane\.?doe|j\.doe|first\.?last|firstname\.?lastname|no-?reply|do-?not-?reply|mailer-daemon|postmaster|git|bounce[s]?|notifications?)$/;

/** Addresses of a role, not a person: reported, at ROLE_CONFIDENCE (in a small team one person reads them). */
const ROLE =
  /^(?:info|support|help|admin|administrator|webmaster|hostmaster|abuse|security|sales|contact|hello|team|office|billing|privacy|legal|press|jobs|careers|hr)$/;
export const ROLE_CONFIDENCE = 0.4;

/**
 * Last labels that are file extensions, not top-level domains (`logo@2x.png`, `file@v1.tar.gz`).
 * A top-level domain of those letters (`.zip`, `.mov`) exists but holds few mailboxes.
 */
const FILE_EXTENSION =
  /^(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|js|mjs|cjs|ts|tsx|jsx|json|css|scss|html?|md|txt|py|rb|go|rs|java|kt|swift|c|h|cpp|hpp|cs|php|sh|ya?ml|toml|lock|xml|csv|pdf|zip|gz|tgz|tar|mov|mp[34]|wasm|map|woff2?|ttf|otf|eot)$/;

export const EMAIL: DetectionRule = {
  id: 'email',
  category: 'pii',
  type: 'EMAIL',
  keywords: ['@'],
  // The local part before `@` is at most 64 characters (RFC 5321 section 4.5.3.1.1).
  lead: 64,
  // An `@` followed by a domain's first label and its dot: the pattern is tried only before those.
  // Code is full of other `@`s (decorators, `@param`, scoped packages), and each cost a search of
  // the 64 characters before it.
  locator: /@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.[A-Za-z0-9]/g,
  // The same domain start, tried at each `@`: an `@` without one opens no window at all.
  follows: /[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.[A-Za-z0-9]/y,
  // Local part: the dot-atom characters of RFC 5322 that addresses use in practice, an apostrophe
  // inside (`o'brien@`), and the Latin letters of internationalised addresses (RFC 6531: `zoë.müller@`),
  // so that a match never starts in the middle of one and leaves its start out of a clean copy.
  // Domain: labels of letters, digits and inner hyphens (RFC 1035), the last of letters only. Each
  // label ends at a dot, so no text is read two ways.
  pattern: new RegExp(
    String.raw`${notAfter(String.raw`\w.%+\\\u00c0-\u024f-`)}(?<value>[A-Za-z0-9\u00c0-\u024f](?:[A-Za-z0-9._%+\u00c0-\u024f-]|'(?=[A-Za-z0-9\u00c0-\u024f])){0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24})(?![\w-]|\.[A-Za-z0-9])`,
    'g',
  ),
  confidence: 0.9,
  check(value, { line }) {
    const at = value.lastIndexOf('@');
    const local = value.slice(0, at).toLowerCase();
    const domain = value.slice(at + 1).toLowerCase();
    const tld = domain.slice(domain.lastIndexOf('.') + 1);
    if (FILE_EXTENSION.test(tld)) return false;
    if (PLACEHOLDER_DOMAIN.test(domain) || NOT_A_PERSON.test(local)) return false;
    // `user:password@host` in a URL: the part before `@` is a credential, not a mailbox. So is
    // anything right after `scheme://` (a Sentry DSN's key) or after a connection string's `user/`
    // (`jdbc:oracle:thin:scott/password@host`).
    const before = line.slice(0, Math.max(0, line.indexOf(value)));
    // The password may hold characters no address does (`postgres://app:Rf7!D5u@db`): an `@` after a
    // `scheme://user:` with no blank or slash between is a credential's, wherever the match began.
    if (/:\/\/[^\s/@]*:[^\s/@"']*$|:\/\/$|(?:^|[\s"'=])[a-z][a-z0-9+.-]*:[^\s"'/]*\/$/i.test(before))
      return false;
    return ROLE.test(local) ? ROLE_CONFIDENCE : 0.9;
  },
};
