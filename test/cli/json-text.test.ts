// JSON edited as text (src/cli/json-text.ts): what is added takes the file's own layout, everything
// else keeps its bytes, and taking out what was added gives back the text exactly.
import { describe, expect, it } from 'vitest';
import { addItem, addMember, layoutOf, nodeAt, remove } from '../../src/cli/json-text.ts';

const entry = { matcher: 'Bash', hooks: [{ type: 'command', command: 'svc' }] };

const layouts: [string, string][] = [
  ['two spaces', JSON.stringify({ a: 1, hooks: { Pre: [{ x: 1 }] } }, null, 2)],
  [
    'four spaces and a final newline',
    `${JSON.stringify({ a: [1, 2], hooks: { Pre: [{ x: 1 }] } }, null, 4)}\n`,
  ],
  ['tabs, with arrays on one line', '{\n\t"a": [1, 2],\n\t"hooks": { "Pre": [{ "x": 1 }] }\n}\n'],
  ['one line', '{"a":1,"hooks":{"Pre":[{"x":1}]}}'],
  ['one line with spaces', '{ "a": 1, "hooks": { "Pre": [ { "x": 1 } ] } }'],
];

describe.each(layouts)('%s', (_name, text) => {
  it('an item added to a list, then taken out, gives back the text', () => {
    const added = addItem(text, ['hooks', 'Pre'], entry);
    expect(JSON.parse(added).hooks.Pre).toEqual([{ x: 1 }, entry]);
    expect(added.startsWith(text.slice(0, nodeAt(layoutOf(text), ['hooks', 'Pre', 0])!.end))).toBe(true);
    expect(remove(added, ['hooks', 'Pre', 1])).toBe(text);
  });

  it('a member added to an object, then taken out, gives back the text', () => {
    const added = addMember(text, ['hooks'], 'Other', [entry]);
    expect(JSON.parse(added).hooks).toEqual({ Pre: [{ x: 1 }], Other: [entry] });
    expect(remove(added, ['hooks', 'Other'])).toBe(text);
    const top = addMember(text, [], 'more', { b: [true, null, 'x'] });
    expect(JSON.parse(top).more).toEqual({ b: [true, null, 'x'] });
    expect(remove(top, ['more'])).toBe(text);
  });
});

it('a new child takes its own line at the indentation of the one before it', () => {
  const text = '{\n    "list": [\n        1\n    ]\n}';
  expect(addItem(text, ['list'], { a: 1 })).toBe(
    '{\n    "list": [\n        1,\n        {\n            "a": 1\n        }\n    ]\n}',
  );
});

it('an empty container is filled on lines of its own in a file of several lines', () => {
  expect(addItem('{\n  "list": []\n}', ['list'], 1)).toBe('{\n  "list": [\n    1\n  ]\n}');
  expect(addMember('{}', [], 'a', 1)).toBe('{"a":1}');
});

it.each([
  ['the first of several items', '[1, 2, 3]', [0], '[2, 3]'],
  ['a middle item', '[1, 2, 3]', [1], '[1, 3]'],
  ['the only member', '{ "a": 1 }', ['a'], '{}'],
  ['a member with escapes in its key and value', '{"a\\"b": "x\\\\", "c": 2}', ['a"b'], '{"c": 2}'],
])('takes out %s', (_name, text, path, expected) => {
  expect(remove(text, path)).toBe(expected);
});

it('reads where values sit, strings with brackets and escapes included', () => {
  const text = '{"k": "a]}\\"[", "n": -1.5e3, "l": [null, {"z": "\\u00e9"}]}';
  const root = layoutOf(text);
  const l = nodeAt(root, ['l'])!;
  expect(text.slice(l.start, l.end)).toBe('[null, {"z": "\\u00e9"}]');
  const n = nodeAt(root, ['n'])!;
  expect(text.slice(n.start, n.end)).toBe('-1.5e3');
  expect(nodeAt(root, ['missing'])).toBeUndefined();
});
