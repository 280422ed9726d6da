/**
 * The static reader map of the tunables: which knob is read in which context. Source files are scanned with the
 * TypeScript parser for reads of the section objects (`engineTunables.vadOn`, `import { engineTunables as T }` then
 * `T.vadOn`, `T['vadOn']`, `const { vadOn } = T`), and runtime imports are walked from each context's entry file, so a
 * knob read in a file that a context loads counts as read by that context. Module-level precision: a file a context
 * loads but never runs still counts (the map errs on the side of more readers). Used by the reader-map test and by the
 * knob walk e2e (tests/e2e/tunables.e2e.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import * as tunables from '../../../core/tunables';

export const ROOT = resolve(import.meta.dirname, '../../..');
const SCANNED = ['core', 'models', 'entrypoints', 'components'];
const TUNABLES_DIR = 'core/tunables/';

/** Every JavaScript realm the extension runs code in, with the file it starts from. */
export const CONTEXTS = {
  background: 'entrypoints/background/index.ts',
  offscreen: 'entrypoints/offscreen/main.ts',
  'model-worker': 'models/workers/model.worker.ts',
  'tts-worker': 'models/tts/pocket/tts.worker.ts',
  /** The voice's Mimi decoder beside the TTS worker (docs/tts.md, the overlapped decode loop). */
  'tts-decoder-worker': 'models/tts/pocket/decoder.worker.ts',
  sidepanel: 'entrypoints/sidepanel/main.tsx',
  popup: 'entrypoints/popup/main.tsx',
  permissions: 'entrypoints/permissions/main.tsx',
  /** Injected into the user's tab by chrome.scripting: nothing can send it a changed value. */
  'page-script': 'entrypoints/extract.ts',
} as const;
export type ContextName = keyof typeof CONTEXTS;

/** Contexts that receive the owner's values (the background owns them; the others apply its broadcast). */
export const DELIVERED: readonly ContextName[] = [
  'background',
  'offscreen',
  'model-worker',
  'tts-worker',
  'sidepanel',
  'popup',
  'permissions',
];

interface ParsedFile {
  /** Runtime imports, resolved to repository-relative paths (type-only imports and packages left out). */
  imports: string[];
  /** `new Worker(new URL('…', import.meta.url))` targets: the start of another context, not an import. */
  workers: string[];
  /** Knob paths ("section.key") read here, plus sections used whole (passed along, spread). */
  reads: Set<string>;
  wholeSections: Set<string>;
  /** Reads that run once, when the module loads: a later change would never be seen. */
  loadTimeReads: Set<string>;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...listSources(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('.')) base = join(dirname(from), spec);
  else if (/^(@|~|@@|~~)\//.test(spec)) base = spec.replace(/^[^/]+\//, '');
  else return null; // a package
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const abs = join(ROOT, candidate);
    if (existsSync(abs) && statSync(abs).isFile()) return relative(ROOT, abs);
  }
  return null; // an asset (.css, .json, a worklet) or a generated file
}

/** Export name → section name (engineTunables → engine): the exported object is the one the registry holds. */
function sectionExports(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(tunables)) {
    for (const [section, values] of tunables.tunableSections()) if (value === values) out.set(name, section);
  }
  return out;
}

type SectionExports = ReadonlyMap<string, string>;

function parseFile(path: string, sectionExports: SectionExports): ParsedFile {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const parsed: ParsedFile = { imports: [], workers: [], reads: new Set(), wholeSections: new Set(), loadTimeReads: new Set() };
  /** Local name → section, for bindings imported from the tunables module. */
  const aliases = new Map<string, string>();
  const namespaces = new Set<string>();
  const addImport = (spec: string) => {
    const resolved = resolveImport(path, spec);
    if (resolved) parsed.imports.push(resolved);
    return resolved;
  };

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      if (statement.importClause?.isTypeOnly) continue;
      const resolved = addImport(statement.moduleSpecifier.text);
      if (!resolved?.startsWith(TUNABLES_DIR)) continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
      else if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const section = sectionExports.get((element.propertyName ?? element.name).text);
          if (section && !element.isTypeOnly) aliases.set(element.name.text, section);
        }
      }
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      if (!statement.isTypeOnly) addImport(statement.moduleSpecifier.text);
    }
  }

  /** The section an expression stands for: an alias (`T`) or a namespace member (`tunables.engineTunables`). */
  const sectionOf = (node: ts.Node): string | undefined => {
    if (ts.isIdentifier(node)) return aliases.get(node.text);
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text))
      return sectionExports.get(node.name.text);
    return undefined;
  };
  // Local aliases: `const T = lipsyncTunables`, `t: typeof ttsTunables = ttsTunables` (until no new alias appears).
  for (let grew = true; grew;) {
    grew = false;
    const collect = (node: ts.Node): void => {
      if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name) && node.initializer) {
        const section = sectionOf(node.initializer);
        if (section !== undefined && !aliases.has(node.name.text)) {
          aliases.set(node.name.text, section);
          grew = true;
        }
      }
      ts.forEachChild(node, collect);
    };
    collect(source);
  }
  /** An expression that names a value: not a declared name, a property name, an import or a type. */
  const isReference = (node: ts.Node): boolean => {
    const parent = node.parent;
    if (!ts.isIdentifier(node)) return ts.isPropertyAccessExpression(node);
    if (!parent || ts.isImportSpecifier(parent) || ts.isNamespaceImport(parent) || ts.isTypeParameterDeclaration(parent))
      return false;
    if ('name' in parent && parent.name === node && !ts.isShorthandPropertyAssignment(parent)) return false;
    for (let up: ts.Node | undefined = parent; up && !ts.isStatement(up); up = up.parent) if (ts.isTypeNode(up)) return false;
    return true;
  };
  const isWriteTarget = (node: ts.Node) =>
    ts.isBinaryExpression(node.parent) &&
    node.parent.left === node &&
    node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) addImport(arg.text);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && /^(Shared)?Worker$/.test(node.expression.text)) {
      const [url] = node.arguments ?? [];
      if (url && ts.isNewExpression(url) && url.arguments?.[0] && ts.isStringLiteral(url.arguments[0])) {
        const target = resolveImport(path, url.arguments[0].text);
        if (target) parsed.workers.push(target);
      }
      return;
    }
    const section = isReference(node) ? sectionOf(node) : undefined;
    if (section === undefined) {
      ts.forEachChild(node, visit);
      return;
    }
    for (const path of readsOf(node, section)) {
      parsed.reads.add(path);
      if (atLoadTime(node)) parsed.loadTimeReads.add(path);
    }
  };
  const atLoadTime = (node: ts.Node): boolean => {
    for (let up = node.parent; up; up = up.parent) if (ts.isFunctionLike(up) || ts.isClassElement(up)) return false;
    return true;
  };
  /** The knobs read where `node` (which stands for `section`) is used; `section.*` when every key is. */
  const readsOf = (node: ts.Node, section: string): string[] => {
    const parent = node.parent;
    if (ts.isPropertyAccessExpression(parent) && parent.expression === node)
      return isWriteTarget(parent) ? [] : [`${section}.${parent.name.text}`];
    if (ts.isElementAccessExpression(parent) && parent.expression === node && ts.isStringLiteral(parent.argumentExpression))
      return isWriteTarget(parent) ? [] : [`${section}.${parent.argumentExpression.text}`];
    if (ts.isVariableDeclaration(parent) && parent.initializer === node && ts.isObjectBindingPattern(parent.name)) {
      return parent.name.elements.map((element) => {
        const key = element.propertyName ?? element.name;
        return ts.isIdentifier(key) || ts.isStringLiteral(key) ? `${section}.${key.text}` : `${section}.*`;
      });
    }
    if (ts.isSpreadAssignment(parent) || ts.isSpreadElement(parent)) return [`${section}.*`]; // copied: every key read
    if ((ts.isVariableDeclaration(parent) || ts.isParameter(parent)) && parent.initializer === node) return []; // an alias
    parsed.wholeSections.add(section); // handed on whole: which keys are read cannot be told here
    return [];
  };
  visit(source);
  return parsed;
}

export interface ReaderMap {
  /** Knob path → contexts whose loaded files read it. */
  readers: Map<string, Set<ContextName>>;
  /** Knob path → files that read it. */
  files: Map<string, Set<string>>;
  /** Context → every file it loads. */
  loaded: Map<ContextName, Set<string>>;
  /** Worker files some source starts with `new Worker(new URL(…))`. */
  workerEntries: Set<string>;
  /** Sections used whole (their keys cannot be told apart statically), with the file. */
  wholeSectionUses: { section: string; file: string }[];
  /** "path in file" for reads that run once when the module loads. */
  loadTimeReads: string[];
}

export function buildReaderMap(): ReaderMap {
  const exports = sectionExports();
  const keys = new Map([...tunables.tunableSections()].map(([name, values]) => [name, Object.keys(values)]));
  const parsed = new Map<string, ParsedFile>();
  for (const dir of SCANNED) {
    for (const file of listSources(dir)) {
      if (file.startsWith(TUNABLES_DIR)) continue;
      const p = parseFile(file, exports);
      for (const path of [...p.reads].filter((r) => r.endsWith('.*'))) {
        p.reads.delete(path);
        const section = path.slice(0, -2);
        for (const key of keys.get(section) ?? []) p.reads.add(`${section}.${key}`);
      }
      parsed.set(file, p);
    }
  }
  const map: ReaderMap = {
    readers: new Map(),
    files: new Map(),
    loaded: new Map(),
    workerEntries: new Set(),
    wholeSectionUses: [],
    loadTimeReads: [],
  };
  for (const [file, p] of parsed) {
    p.workers.forEach((w) => map.workerEntries.add(w));
    p.wholeSections.forEach((section) => map.wholeSectionUses.push({ section, file }));
    p.loadTimeReads.forEach((path) => map.loadTimeReads.push(`${path} in ${file}`));
    for (const path of p.reads) {
      if (!map.files.has(path)) map.files.set(path, new Set());
      map.files.get(path)!.add(file);
    }
  }
  for (const [context, entry] of Object.entries(CONTEXTS) as [ContextName, string][]) {
    const seen = new Set<string>();
    const queue = [entry];
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...(parsed.get(file)?.imports ?? []));
    }
    map.loaded.set(context, seen);
    for (const file of seen) {
      for (const path of parsed.get(file)?.reads ?? []) {
        if (!map.readers.has(path)) map.readers.set(path, new Set());
        map.readers.get(path)!.add(context);
      }
    }
  }
  return map;
}
