// What every JSON input must be before any schema sees it. Three shapes pass a schema and then
// fail or mislead later, so each boundary refuses them up front, with the path of the offending
// value:
// - text that is not well-formed Unicode (a lone UTF-16 surrogate): RFC 8785 cannot canonicalize
//   it, so a receipt or audit row that should cover the request could not be signed;
// - nesting deeper than MAX_JSON_DEPTH: recursive serializers (signing, forwarding a body) would
//   overflow the stack on it;
// - a `__proto__` key: the schemas drop it without a word, so a filter or detail the caller meant
//   would silently vanish, its value never validated.
import { ServiceError, invalidInput } from './errors.ts';

/** How deep objects and arrays may nest in any input; real requests stay under 10. */
export const MAX_JSON_DEPTH = 64;

/** An object or array still to look into, and how it was reached (its path is built only for a message). */
interface Pending {
  value: object;
  depth: number;
  parent: Pending | undefined;
  key: string;
}

function pathOf(node: Pending, key?: string): string[] {
  const steps: string[] = key === undefined ? [] : [key];
  for (let at: Pending | undefined = node; at?.parent; at = at.parent) steps.push(at.key);
  steps.reverse();
  // A path 60 levels deep helps nobody: its start says where.
  return steps.length > 8 ? [...steps.slice(0, 8), '…'] : steps;
}

/** The same refusal a schema gives (`invalid_request` with its issues), plus what to do. */
const refuse = (path: string[], message: string, hint: string) => {
  const error = invalidInput({ issues: [{ path, message }] });
  return new ServiceError(error.code, error.message, { ...error.details, hint });
};

const LONE_SURROGATE = 'is not well-formed Unicode text (it holds a lone surrogate)';
const SURROGATE_HINT = 'send text as well-formed Unicode: every \\uD800-\\uDFFF escape paired';

/**
 * Refuses an input that is not plain well-formed JSON data (see above). Iterative, so a deep
 * input cannot overflow the stack here either.
 */
export function checkJsonShape(input: unknown): void {
  if (typeof input === 'string') {
    if (!input.isWellFormed()) throw refuse([], LONE_SURROGATE, SURROGATE_HINT);
    return;
  }
  if (typeof input !== 'object' || input === null) return;
  const pending: Pending[] = [{ value: input, depth: 1, parent: undefined, key: '' }];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.depth > MAX_JSON_DEPTH) {
      throw refuse(
        pathOf(node),
        `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
        'flatten the value; no svc input needs that depth',
      );
    }
    const isArray = Array.isArray(node.value);
    for (const key of isArray ? Object.keys(node.value) : enumerableKeys(node.value)) {
      if (!isArray) {
        if (key === '__proto__') {
          throw refuse(
            pathOf(node, key),
            'the key `__proto__` is not accepted',
            'rename the key; no svc field is called __proto__',
          );
        }
        if (!key.isWellFormed()) throw refuse(pathOf(node), `a key ${LONE_SURROGATE}`, SURROGATE_HINT);
      }
      const item = (node.value as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (!item.isWellFormed()) throw refuse(pathOf(node, key), LONE_SURROGATE, SURROGATE_HINT);
      } else if (typeof item === 'object' && item !== null) {
        pending.push({ value: item, depth: node.depth + 1, parent: node, key });
      }
    }
  }
}

/**
 * The keys `for...in` visits. An array's are taken with Object.keys instead (its own indices, the
 * only keys a parsed array has): `for...in` over an array takes a path several times slower.
 */
function enumerableKeys(value: object): string[] {
  const keys: string[] = [];
  for (const key in value) keys.push(key);
  return keys;
}
