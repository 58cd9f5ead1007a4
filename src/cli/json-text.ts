// A JSON file edited as text: a member or an item added or taken out, every other byte left as it
// was. Taking out what was added gives back the file exactly, however its owner formatted it, and
// a client's settings keep their layout when svc puts its hook in.

/** Where a value sits in the text: `start` is its first character, `end` is just past its last. */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number };

/** An object's member: `start` is its key's opening quote. */
export interface JsonMember {
  key: string;
  start: number;
  value: JsonNode;
}

/** A step from a value to one inside it: a member's key or an item's index. */
export type JsonPath = (string | number)[];

const WHITESPACE = ' \t\n\r';

/** Where every value of `text` sits. `text` must be valid JSON (JSON.parse it first). */
export function layoutOf(text: string): JsonNode {
  let at = 0;
  const skip = () => {
    while (at < text.length && WHITESPACE.includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): JsonNode => {
    skip();
    const start = at;
    if (text[at] === '{') {
      at++;
      const members: JsonMember[] = [];
      skip();
      if (text[at] !== '}')
        do {
          skip();
          const keyStart = at;
          const key = string();
          skip();
          at++; // the colon
          members.push({ key, start: keyStart, value: value() });
          skip();
        } while (text[at++] === ',');
      else at++;
      return { kind: 'object', start, end: at, members };
    }
    if (text[at] === '[') {
      at++;
      const items: JsonNode[] = [];
      skip();
      if (text[at] !== ']')
        do {
          items.push(value());
          skip();
        } while (text[at++] === ',');
      else at++;
      return { kind: 'array', start, end: at, items };
    }
    if (text[at] === '"') string();
    else while (at < text.length && !`${WHITESPACE},]}`.includes(text[at]!)) at++;
    return { kind: 'scalar', start, end: at };
  };
  return value();
}

/** The value at `path`, or undefined when there is none. */
export function nodeAt(root: JsonNode, path: JsonPath): JsonNode | undefined {
  let node: JsonNode | undefined = root;
  for (const step of path) {
    if (node?.kind === 'object' && typeof step === 'string')
      node = node.members.findLast((m) => m.key === step)?.value;
    else if (node?.kind === 'array' && typeof step === 'number') node = node.items[step];
    else return undefined;
  }
  return node;
}

/** The children of a container as spans from their first character (a member's key) to their end. */
function spans(node: JsonNode): { start: number; end: number }[] {
  if (node.kind === 'object') return node.members.map((m) => ({ start: m.start, end: m.value.end }));
  if (node.kind === 'array') return node.items.map((i) => ({ start: i.start, end: i.end }));
  throw new Error('not an object or an array');
}

/** The text's indentation step: that of its first indented line; '' for text on one line. */
function indentUnit(text: string): string {
  if (!text.trim().includes('\n')) return '';
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

/** The whitespace that starts the line `at` is on. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Adds `entry` (a member's or an item's text, given its indentation) as the container's last child. */
function append(text: string, container: JsonNode, entry: (indent: string, unit: string) => string): string {
  const children = spans(container);
  const unit = indentUnit(text);
  const last = children.at(-1);
  if (last) {
    const before = text.slice(0, last.start);
    const gap = before.slice(before.trimEnd().length);
    // Children on lines of their own: the new one takes its own line, indented as the last one.
    const ownLine = gap.includes('\n');
    const indent = ownLine ? lineIndent(text, last.start) : '';
    const insert = ownLine ? `,\n${indent}${entry(indent, unit)}` : `,${gap}${entry('', '')}`;
    return text.slice(0, last.end) + insert + text.slice(last.end);
  }
  const open = container.start + 1;
  const close = container.end - 1;
  if (!unit) return text.slice(0, open) + entry('', '') + text.slice(close);
  const outer = lineIndent(text, container.start);
  return `${text.slice(0, open)}\n${outer}${unit}${entry(outer + unit, unit)}\n${outer}${text.slice(close)}`;
}

/** A value as JSON text at an indentation; on one line when `unit` is ''. */
const render = (value: unknown, indent: string, unit: string) =>
  unit ? JSON.stringify(value, null, unit).replaceAll('\n', `\n${indent}`) : JSON.stringify(value);

/** `text` with `value` added as the last member `key` of the object at `path`. */
export function addMember(text: string, path: JsonPath, key: string, value: unknown): string {
  const object = nodeAt(layoutOf(text), path);
  if (object?.kind !== 'object') throw new Error(`no object at ${path.join('.')}`);
  return append(
    text,
    object,
    (indent, unit) => `${JSON.stringify(key)}:${unit ? ' ' : ''}${render(value, indent, unit)}`,
  );
}

/** `text` with `value` added as the last item of the array at `path`. */
export function addItem(text: string, path: JsonPath, value: unknown): string {
  const array = nodeAt(layoutOf(text), path);
  if (array?.kind !== 'array') throw new Error(`no array at ${path.join('.')}`);
  return append(text, array, (indent, unit) => render(value, indent, unit));
}

/** `text` without the member or item at `path`, and the comma that set it apart. */
export function remove(text: string, path: JsonPath): string {
  const root = layoutOf(text);
  const container = nodeAt(root, path.slice(0, -1));
  if (!container || container.kind === 'scalar') throw new Error(`nothing at ${path.join('.')}`);
  const step = path.at(-1)!;
  const index =
    container.kind === 'object' ? container.members.findLastIndex((m) => m.key === step) : (step as number);
  const children = spans(container);
  const child = children[index];
  if (!child) throw new Error(`nothing at ${path.join('.')}`);
  // The span a child added by `append` took: from the end of the one before it.
  if (index > 0) return text.slice(0, children[index - 1]!.end) + text.slice(child.end);
  if (children.length > 1) return text.slice(0, child.start) + text.slice(children[1]!.start);
  return text.slice(0, container.start + 1) + text.slice(container.end - 1);
}
