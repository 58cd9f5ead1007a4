// Text from outside (names of files, commands, an agent's words) as a person's screen may show it:
// in a terminal, and in the confirmation form a client shows for svc. A name may be anyone's: a
// line break in it would add a line of its own making to the question the person answers, and an
// escape would recolour or rewrite what is shown.

/**
 * `text` with control characters (a line break, an escape) written as `\xNN`, and the marks that
 * reorder text (right-to-left overrides and isolates) as `\uNNNN`.
 */
export const printable = (text: string) =>
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c.charCodeAt(0) > 0xff
      ? `\\u${c.charCodeAt(0).toString(16)}`
      : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

/** A question of several lines, each made printable: its own line breaks are kept, and only those. */
export const printableLines = (text: string) => text.split('\n').map(printable).join('\n');
