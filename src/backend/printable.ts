// Text from outside (names of files, commands, an agent's words) as a person's screen may show it:
// in a terminal, and in the confirmation form a client shows for svc. A name may be anyone's: a
// line break in it would add a line of its own making to the question the person answers, and an
// escape would recolour or rewrite what is shown.

/**
 * `text` with control characters (a line break, an escape) written as `\xNN`, and as `\uNNNN` the
 * characters that break a line or reorder or hide text without showing themselves: the line and
 * paragraph separators, right-to-left marks, overrides and isolates, zero-width spaces and joiners,
 * and the byte order mark. Idempotent: what it writes holds none of them.
 */
export const printable = (text: string) =>
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, (c) =>
    c.charCodeAt(0) > 0xff
      ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
      : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

/** A question of several lines, each made printable: its own line breaks are kept, and only those. */
export const printableLines = (text: string) => text.split('\n').map(printable).join('\n');
