// Rewrites the tool table in README.md from the catalog and the registry.
import { readFileSync, writeFileSync } from 'node:fs';
import { withToolTable } from '../src/tools/catalog-doc.ts';

const file = new URL('../README.md', import.meta.url);
writeFileSync(file, withToolTable(readFileSync(file, 'utf8')));
