// The tool inventory: every registered tool is a catalog name in its catalog group with every
// field of its declaration; the catalog holds exactly 38 names in 5 groups; schema snapshots;
// the README table is generated from the registry and not stale.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import prettier from 'prettier';
import { CATALOG, GROUPS, groupOf } from '../../src/tools/registry.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { withToolTable } from '../../src/tools/catalog-doc.ts';

describe('the catalog', () => {
  it('holds exactly 38 unique svc_ names in the 5 groups', () => {
    const names = Object.values(CATALOG).flat();
    expect(names).toHaveLength(38);
    expect(new Set(names).size).toBe(38);
    expect(names.every((n) => /^svc_[a-z_]+$/.test(n))).toBe(true);
    expect(Object.keys(CATALOG)).toEqual(Object.keys(GROUPS));
    expect(Object.keys(CATALOG)).toHaveLength(5);
  });
});

describe.each(TOOLS.map((t) => [t.name, t] as const))('%s', (name, tool) => {
  it('is a catalog name, declared in its catalog group, with every field', () => {
    expect(groupOf(name)).toBe(tool.group);
    expect(tool.title.length).toBeGreaterThan(3);
    // Written for a model: long enough to say what, when and what next.
    expect(tool.description.length).toBeGreaterThan(120);
    expect(['none', 'owner', 'grant', 'owner or grant']).toContain(tool.credential);
    expect(typeof tool.handler).toBe('function');
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof tool.annotations[hint]).toBe('boolean');
    }
    expect(tool.annotations.readOnlyHint && tool.annotations.destructiveHint).toBe(false);
  });

  it('has object schemas with no top-level anyOf or oneOf', () => {
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
      expect(json.type).toBe('object');
      expect(json).not.toHaveProperty('anyOf');
      expect(json).not.toHaveProperty('oneOf');
    }
  });

  it('matches its schema snapshot', async () => {
    const snapshot = {
      name,
      group: tool.group,
      title: tool.title,
      description: tool.description,
      credential: tool.credential,
      annotations: tool.annotations,
      inputSchema: z.toJSONSchema(tool.inputSchema, { io: 'input' }),
      outputSchema: z.toJSONSchema(tool.outputSchema, { io: 'output' }),
    };
    await expect(`${JSON.stringify(snapshot, null, 2)}\n`).toMatchFileSnapshot(`__toolsnaps__/${name}.snap`);
  });
});

describe('README tool table', () => {
  it('is generated from the registry and the catalog (run `npm run docs:tools` after changing tools)', async () => {
    const file = new URL('../../README.md', import.meta.url);
    const readme = readFileSync(file, 'utf8');
    const options = { ...(await prettier.resolveConfig(file)), parser: 'markdown' };
    expect(readme).toBe(await prettier.format(withToolTable(readme), options));
    for (const name of Object.values(CATALOG).flat()) expect(readme).toContain(`\`${name}\``);
  });
});
