// What a refused input needs, in words: zod's own messages ("Invalid input: expected array, received
// undefined") replaced by ones that name the field and say what it takes. A message a schema gives
// itself (`.regex(re, 'must be ...')`, a refine's) outranks this map, as zod ranks error maps.
import type { z } from 'zod';
import { apiDoc } from './api-doc.ts';

type Issue = z.core.$ZodRawIssue;
type Schema = z.core.$ZodType | z.core.$ZodCheck | undefined;

/** How a value of a JSON type is named to the caller: `a string`, `an array of strings`. */
const TYPE_NAMES: Record<string, [one: string, many: string]> = {
  string: ['a string', 'strings'],
  number: ['a number', 'numbers'],
  int: ['an integer', 'integers'],
  boolean: ['true or false', 'booleans'],
  array: ['an array', 'arrays'],
  object: ['an object', 'objects'],
  record: ['an object', 'objects'],
  null: ['null', 'nulls'],
};

/** The schema's definition, read through zod's internals (`_zod.def`), loosely typed. */
function defOf(schema: Schema): Record<string, unknown> | undefined {
  return (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
}

/** A schema's documented description, from the API's registry or zod's own. */
function descriptionOf(schema: Schema): string | undefined {
  if (!schema || !('_zod' in schema) || !('~standard' in schema)) return undefined;
  const documented = apiDoc.get(schema as z.ZodType)?.description;
  return documented ?? (schema as { description?: string }).description;
}

function numberRange(schema: Schema): string {
  const { minValue, maxValue } = (schema ?? {}) as { minValue?: number | null; maxValue?: number | null };
  const bounded = (v: number | null | undefined): v is number =>
    typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER;
  if (bounded(minValue) && bounded(maxValue)) return ` from ${minValue} to ${maxValue}`;
  if (bounded(minValue)) return ` of at least ${minValue}`;
  if (bounded(maxValue)) return ` of at most ${maxValue}`;
  return '';
}

/** What a schema takes, in words: `an integer from 1 to 200`, `an array of strings (column names)`. */
function expectation(schema: Schema, expected: string): string {
  const def = defOf(schema);
  const type = (def?.type as string | undefined) ?? expected;
  let phrase: string;
  if (type === 'number') {
    const isInt = (schema as { isInt?: boolean } | undefined)?.isInt === true;
    phrase = `${isInt ? 'an integer' : 'a number'}${numberRange(schema)}`;
  } else if (type === 'array') {
    const element = def?.element as Schema;
    const elementType = defOf(element)?.type as string | undefined;
    phrase =
      elementType && TYPE_NAMES[elementType] ? `an array of ${TYPE_NAMES[elementType][1]}` : 'an array';
  } else if (type === 'enum') {
    phrase = `one of ${Object.values((def?.entries as Record<string, unknown>) ?? {}).join(', ')}`;
  } else if (type === 'literal') {
    phrase = ((def?.values as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(' or ');
  } else {
    phrase = TYPE_NAMES[type]?.[0] ?? TYPE_NAMES[expected]?.[0] ?? `a value of type ${expected}`;
  }
  const description = descriptionOf(schema);
  return description ? `${phrase} (${description})` : phrase;
}

/** The field as the message names it: `columns`, `where.region`, or the body itself. */
function fieldOf(issue: Issue): string {
  return issue.path && issue.path.length ? `\`${issue.path.map(String).join('.')}\`` : 'the body';
}

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID (8-4-4-4-12 hexadecimal digits)',
  guid: 'a UUID (8-4-4-4-12 hexadecimal digits)',
  datetime: 'a date-time with its offset, like 2030-01-31T12:00:00Z',
  date: 'a date, like 2030-01-31',
  email: 'an email address',
  url: 'a URL',
  base64: 'standard base64',
  base64url: 'base64url',
};

function sizeMessage(issue: Issue & { origin: string }, bound: number | bigint, least: boolean): string {
  const field = fieldOf(issue);
  const word = least ? 'at least' : 'at most';
  const exact = (issue as { exact?: boolean }).exact;
  const inclusive = (issue as { inclusive?: boolean }).inclusive !== false;
  switch (issue.origin) {
    case 'string':
      return `${field} must be ${exact ? 'exactly' : word} ${bound} character${bound === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      return `${field} must hold ${exact ? 'exactly' : word} ${bound} item${bound === 1 ? '' : 's'}`;
    default:
      return `${field} must be ${inclusive ? word : least ? 'more than' : 'less than'} ${bound}`;
  }
}

/**
 * The error map for every parse of a caller's input (`schema.safeParse(input, { error: inputErrorMap })`):
 * each message names the field and says what it takes, so the caller knows what to send instead.
 */
export const inputErrorMap: z.core.$ZodErrorMap = (issue) => {
  const field = fieldOf(issue);
  const schema = (issue.schema ?? issue.inst) as Schema;
  switch (issue.code) {
    case 'invalid_type': {
      const wanted = expectation(schema, issue.expected);
      if (issue.input === undefined) {
        return issue.path?.length ? `${field} is required: ${wanted}` : `the body is required: ${wanted}`;
      }
      if (typeof issue.input === 'number' && Number.isNaN(issue.input)) {
        return `${field} must be ${wanted}; what was sent is not a number`;
      }
      const sent =
        issue.input === null ? 'null' : Array.isArray(issue.input) ? 'an array' : typeof issue.input;
      return `${field} must be ${wanted}, not ${sent}`;
    }
    case 'too_small':
      return sizeMessage(issue, issue.minimum, true);
    case 'too_big':
      return sizeMessage(issue, issue.maximum, false);
    case 'unrecognized_keys': {
      const known = Object.keys((defOf(schema)?.shape as Record<string, unknown>) ?? {});
      const unknown = `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
      const advice = `remove ${issue.keys.length === 1 ? 'it' : 'them'}${known.length ? ` (the fields are ${known.join(', ')})` : ''}`;
      return issue.path?.length ? `${field} has ${unknown}: ${advice}` : `${unknown}: ${advice}`;
    }
    case 'invalid_value':
      return `${field} must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'invalid_format': {
      if (issue.format === 'regex') {
        const description = descriptionOf(schema);
        return `${field} is not in the form it takes${description ? ` (${description})` : ''}: it must match ${issue.pattern ?? 'its pattern'}`;
      }
      return `${field} must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    }
    case 'invalid_union':
      return `${field} matches none of the forms it may take: see this request's schema in /openapi.json`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${issue.divisor}`;
    default:
      return `${field} is not valid`;
  }
};
