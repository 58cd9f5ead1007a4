// The import graph of src/: no cycles, every file in a layer, every import allowed by the layer table.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/: a folder, and the other layers its files may import. Every layer may import
 * itself. A file belongs to the longest folder that contains it; a file in no folder here fails the
 * test, so a new folder joins the architecture on purpose. A folder with no files yet is fine.
 */
const LAYERS: Record<string, readonly string[]> = {
  // Wire formats of receipts, chains, enroll challenges and Fabric envelopes: pure, so the service, its
  // tools and the SDK agree byte for byte.
  'src/proofs': [],
  'src/config': [],
  // Finding and masking secrets in text: pure, so the core, the gate and the scanner share it.
  'src/scan': [],
  'src/vault': ['src/config'],
  // The file and folder rules and their decisions: a domain of its own, free of the service, so a
  // hook process loads it without the store's operations or any adapter; the core keeps the
  // organization's rules with it.
  'src/gate': ['src/scan', 'src/config'],
  // The core (store, operations, domain modules): it never knows which adapter called it.
  'src/backend': ['src/proofs', 'src/vault', 'src/scan', 'src/gate', 'src/config'],
  // Adapters, one protocol each over the core; they never import each other.
  'src/http': ['src/backend', 'src/gate', 'src/proofs', 'src/vault', 'src/config'],
  'src/tools': ['src/backend', 'src/gate', 'src/proofs', 'src/vault', 'src/config'],
  'src/hooks': ['src/backend', 'src/gate', 'src/proofs', 'src/vault', 'src/config'],
  // Ships to third parties: it must not pull in the service.
  'src/sdk': ['src/proofs'],
  // Composes processes (a server with its mounts, the stdio MCP server with its approval page).
  'src/entry': [
    'src/http',
    'src/tools',
    'src/hooks',
    'src/gate',
    'src/sdk',
    'src/backend',
    'src/proofs',
    'src/vault',
    'src/config',
  ],
  // The `svc` command line reaches the adapters only through the processes src/entry composes.
  'src/cli': ['src/entry', 'src/backend', 'src/gate', 'src/proofs', 'src/vault', 'src/config'],
};

/**
 * Layers that may take types (erased at run time) from another: the SDK's request and answer types
 * are the service's own schemas, so they cannot drift, yet the SDK loads nothing of the service.
 */
const TYPES_FROM: Record<string, string[]> = { 'src/sdk': ['src/backend'] };
const TYPE_ONLY = new Set<Kind>(['import type', 'export type from', 'type import()']);

/** Layers whose code must run in any JavaScript runtime, so they may not import a Node builtin. */
const RUNTIME_NEUTRAL = ['src/proofs', 'src/scan'];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs']);

type Kind =
  'import' | 'import type' | 'export from' | 'export type from' | 'dynamic import' | 'type import()';

interface Edge {
  /** Importing file, relative to the repository root with forward slashes. */
  from: string;
  line: number;
  specifier: string;
  kind: Kind;
  /** The imported file, relative to the repository root; undefined for a bare specifier. */
  to?: string;
}

const posix = (path: string): string => path.split(sep).join('/');

/**
 * The file a relative specifier names. The project writes `.ts` extensions, but TypeScript also
 * maps a `.js` specifier onto its `.ts` source, so that spelling must not hide an edge.
 */
function resolveSpecifier(fromFile: string, specifier: string): string {
  const target = resolve(dirname(resolve(ROOT, fromFile)), specifier);
  const candidates = [target];
  const swap: Record<string, string> = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts', '.jsx': '.tsx' };
  const swapped = swap[extname(target)];
  if (swapped) candidates.push(target.slice(0, -extname(target).length) + swapped);
  const found = candidates.find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile());
  return posix(relative(ROOT, found ?? target));
}

/**
 * Every import of one file, read from its syntax tree so that comments and strings that merely
 * look like imports are not counted. Type-only imports count as well: they are erased at run time
 * and so cannot break module initialisation, but they still state which module depends on which,
 * and a core that type-imports an adapter is as coupled to it as one that calls it.
 */
function importsOf(file: string, text: string): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (node: ts.Node, specifier: string, kind: Kind): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const relativeSpecifier = specifier.startsWith('./') || specifier.startsWith('../');
    edges.push({
      from: file,
      line,
      specifier,
      kind,
      to: relativeSpecifier ? resolveSpecifier(file, specifier) : undefined,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const everyNameIsType =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((element) => element.isTypeOnly);
      add(node, node.moduleSpecifier.text, clause?.isTypeOnly || everyNameIsType ? 'import type' : 'import');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text, node.isTypeOnly ? 'export type from' : 'export from');
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, node.isTypeOnly ? 'import type' : 'import');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      // A computed specifier cannot be followed statically; the codebase has none to lose.
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) add(node, argument.text, 'dynamic import');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text, 'type import()');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Every file under src/, relative to the repository root. */
function sourceTree(): string[] {
  return readdirSync(resolve(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => posix(relative(ROOT, resolve(entry.parentPath, entry.name))))
    .sort();
}

function layerOf(file: string): string | undefined {
  return Object.keys(LAYERS)
    .filter((layer) => file.startsWith(`${layer}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/**
 * Cycles of a directed graph, each as a path that returns to its start. One cycle is reported per
 * back edge of a depth-first search: every loop contains at least one back edge, so an empty list
 * proves the graph acyclic, and breaking the reported loops and running again surfaces any others.
 */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'closed'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of [...new Set(graph.get(node) ?? [])].sort()) {
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(node, 'closed');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

const files = sourceTree();
const edges = files
  .filter((file) => SOURCE_EXTENSIONS.has(extname(file)) && !file.endsWith('.d.ts'))
  .flatMap((file) => importsOf(file, readFileSync(resolve(ROOT, file), 'utf8')));
const internal = edges.filter((edge): edge is Edge & { to: string } => edge.to !== undefined);
const where = (edge: Edge): string => `${edge.from}:${edge.line} ${edge.kind} '${edge.specifier}'`;
const report = (title: string, lines: readonly string[]): string =>
  `${title} (${lines.length}):\n  ${lines.join('\n  ')}`;

describe('the cycle finder', () => {
  it('finds a loop through three modules and a module importing itself', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
    ]);
    expect(findCycles(graph)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['d', 'd'],
    ]);
  });

  it('passes a DAG, including two paths that meet again', () => {
    const graph = new Map([
      ['a', ['b', 'c']],
      ['b', ['d']],
      ['c', ['d']],
      ['d', []],
    ]);
    expect(findCycles(graph)).toEqual([]);
  });
});

describe('the import graph of src/', () => {
  it('reads real imports of every kind', () => {
    const found = importsOf(
      'src/x/a.ts',
      [
        "import { b } from './b.ts';",
        "import type { C } from './c.ts';",
        "import { type D } from './d.ts';",
        "export * from './e.ts';",
        "export type { F } from './f.ts';",
        "const g = await import('./g.ts');",
        "type H = import('./h.ts').H;",
        "// import { i } from './i.ts';",
        'const j = "import { j } from \'./j.ts\'";',
        "import { k } from 'node:fs';",
      ].join('\n'),
    );
    expect(found.map((edge) => [edge.line, edge.kind, edge.to ?? edge.specifier])).toEqual([
      [1, 'import', 'src/x/b.ts'],
      [2, 'import type', 'src/x/c.ts'],
      [3, 'import type', 'src/x/d.ts'],
      [4, 'export from', 'src/x/e.ts'],
      [5, 'export type from', 'src/x/f.ts'],
      [6, 'dynamic import', 'src/x/g.ts'],
      [7, 'type import()', 'src/x/h.ts'],
      [10, 'import', 'node:fs'],
    ]);
  });

  it('has no import cycles', () => {
    const graph = new Map<string, string[]>();
    for (const edge of internal) graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
    const cycles = findCycles(graph).map((cycle) => cycle.join(' -> '));
    expect(cycles.length, report('import cycles in src/', cycles)).toBe(0);
  });

  it('names only layers of its own table', () => {
    const unknown = Object.entries(LAYERS).flatMap(([layer, allowed]) =>
      allowed.filter((name) => !(name in LAYERS)).map((name) => `${layer} allows unknown layer ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('places every file under src/ in a layer', () => {
    const homeless = files.filter((file) => layerOf(file) === undefined);
    expect(homeless.length, report('files under src/ in no layer of the table', homeless)).toBe(0);
  });

  it('resolves every relative import to a file under src/', () => {
    const broken = internal.flatMap((edge) => {
      if (!edge.to.startsWith('src/')) return [`${where(edge)}: leaves src/ (${edge.to})`];
      if (!files.includes(edge.to)) return [`${where(edge)}: no such file ${edge.to}`];
      return [];
    });
    expect(broken.length, report('relative imports that do not name a file under src/', broken)).toBe(0);
  });

  it('follows the layer table', () => {
    const broken = internal.flatMap((edge) => {
      const from = layerOf(edge.from);
      const to = layerOf(edge.to);
      // Files in no layer, and imports that name no file, fail the two tests above.
      if (from === undefined || to === undefined || from === to) return [];
      const allowed = LAYERS[from] ?? [];
      if (allowed.includes(to)) return [];
      if (TYPE_ONLY.has(edge.kind) && TYPES_FROM[from]?.includes(to)) return [];
      const may = allowed.length > 0 ? `itself, ${allowed.join(', ')}` : 'itself';
      return [`${where(edge)} -> ${edge.to}: ${from} may import only ${may}; not ${to}`];
    });
    expect(broken.length, report('imports that break the layer table', broken)).toBe(0);
  });

  it('keeps Node builtins out of the runtime-neutral layers', () => {
    const broken = edges
      .filter((edge) => edge.to === undefined && isBuiltin(edge.specifier))
      .filter((edge) => RUNTIME_NEUTRAL.includes(layerOf(edge.from) ?? ''))
      .map((edge) => `${where(edge)}: ${layerOf(edge.from)} must run in any JavaScript runtime`);
    expect(broken.length, report('Node builtins imported where no Node runs', broken)).toBe(0);
  });
});
