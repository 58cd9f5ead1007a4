// Names as a person's screen shows them (src/backend/printable.ts): nothing in a name can break the
// line it is on, recolour the screen, reorder the words around it or hide itself; what it writes
// is made printable again unchanged, as the layers that show a question each apply it.
import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../src/backend/printable.ts';

describe('printable', () => {
  it.each([
    ['a\nb', 'a\\x0ab'],
    ['a\r\nb', 'a\\x0d\\x0ab'],
    ['\u001b[2Kred', '\\x1b[2Kred'],
    ['a\u0085b', 'a\\x85b'],
    ['a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['txt.\u202eexe', 'txt.\\u202eexe'],
    ['a\u200bb\u200fc\u061cd\u2066e\ufefff', 'a\\u200bb\\u200fc\\u061cd\\u2066e\\ufefff'],
    ['pay\u00adpal\u{e0041}\u{e0042}.md', 'pay\\xadpal\\u{e0041}\\u{e0042}.md'],
    ['a\ufe0fb\u{e0100}c\u3164d\u206ae', 'a\\ufe0fb\\u{e0100}c\\u3164d\\u206ae'],
    ['Contraseña, 名前, café 👍.md', 'Contraseña, 名前, café 👍.md'],
  ])('%j shows as %s', (name, shown) => {
    expect(printable(name)).toBe(shown);
    expect(printable(printable(name))).toBe(shown);
  });

  it('keeps the line breaks of a question of several lines, and only those', () => {
    expect(printableLines('Apply?\nr1 rule deny ./a\u001b.md\nr2 seal ./b\u2028.md')).toBe(
      'Apply?\nr1 rule deny ./a\\x1b.md\nr2 seal ./b\\u2028.md',
    );
  });
});
