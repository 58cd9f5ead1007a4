// Text from outside (names of files, commands, an agent's words) as a person's screen may show it:
// in a terminal, and in the confirmation form a client shows for svc. A name may be anyone's: a
// line break in it would add a line of its own making to the question the person answers, and an
// escape would recolour or rewrite what is shown.

/**
 * `text` with control characters (a line break, an escape) written as `\xNN`, and as `\uNNNN` (or
 * `\u{NNNNN}`) the characters that break a line or reorder or hide text without showing themselves:
 * the line and paragraph separators, right-to-left marks, overrides and isolates, zero-width spaces
 * and joiners, soft hyphens, fillers and variation selectors (which can carry hidden bytes),
 * interlinear annotation marks, the byte order mark, and the tag characters that can spell hidden
 * words. Idempotent: what it writes holds none of them.
 */
export const printable = (text: string) =>
  text.replace(
    // eslint-disable-next-line no-control-regex, no-misleading-character-class -- control and combining characters are what it looks for, one at a time
    /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]/gu,
    (c) => {
      const code = c.codePointAt(0)!;
      if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    },
  );

/** A question of several lines, each made printable: its own line breaks are kept, and only those. */
export const printableLines = (text: string) => text.split('\n').map(printable).join('\n');
