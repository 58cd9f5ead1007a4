// Rewrites what is generated from the catalog and the registry: the tool table in README.md and
// src/tools/tool-list.json, the tools/list answer servers give without loading the tools.
import { readFileSync, writeFileSync } from 'node:fs';
import { withToolTable } from '../src/tools/catalog-doc.ts';
import { TOOLS } from '../src/tools/index.ts';
import { toolListJson } from '../src/tools/tool-list.ts';

const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withToolTable(readFileSync(readme, 'utf8')));
writeFileSync(new URL('../src/tools/tool-list.json', import.meta.url), toolListJson(TOOLS));
