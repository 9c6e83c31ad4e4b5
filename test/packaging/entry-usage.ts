import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';

// What each package entry exports and what the rest of the repository imports from it, read
// from the source with the TypeScript parser (no type checking: one file at a time).

/** One entry of a package: `@switchyard/x` (its `src/index.ts`) or a subpath such as `@switchyard/x/dry-run`. */
export interface Entry {
  /** The specifier others import it by. */
  key: string;
  pkg: string;
  /** The package folder. */
  dir: string;
  /** The source file the entry is built from. */
  source: string;
  /** Its built file, relative to the package folder (`dist/index.js`). */
  dist: string;
}

/** A use of a whole entry whose names cannot be read from the source: every name counts as used. */
export interface OpaqueUse {
  key: string;
  file: string;
  line: number;
  what: string;
}

export interface Uses {
  /** Entry key → names imported from it. */
  names: Map<string, Set<string>>;
  opaque: OpaqueUse[];
  /**
   * `export * from '@switchyard/x'`: within a package entry's own modules, the names used
   * through that entry count for x; anywhere else, an opaque use.
   */
  reexports: OpaqueUse[];
}

export const newUses = (): Uses => ({ names: new Map(), opaque: [], reexports: [] });

/** A name one entry exports: its own, or passed on by `export *` from another package's entry. */
export interface Exported {
  name: string;
  /** The entry key it is re-exported from, when it comes from another package. */
  from?: string;
}

/** Reads a file: the real disk in the repository check, a map in the fixtures. */
export type Read = (file: string) => string | undefined;

export const readDisk: Read = (file) =>
  statSync(file, { throwIfNoEntry: false })?.isFile() ? readFileSync(file, 'utf8') : undefined;

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
}

function scriptKind(file: string): ts.ScriptKind {
  return /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** The package entries: each package's `exports` (the `package.json` subpath aside). */
export function packageEntries(root: string, read: Read = readDisk): Entry[] {
  const out: Entry[] = [];
  for (const top of ['packages', 'plugins']) {
    for (const name of readdirSync(join(root, top)).sort()) {
      const dir = join(root, top, name);
      const pkgText = read(join(dir, 'package.json'));
      if (pkgText === undefined) continue;
      const pkg = JSON.parse(pkgText) as { name: string; exports?: Record<string, unknown> };
      const tsup = read(join(dir, 'tsup.config.ts')) ?? '';
      for (const [subpath, target] of Object.entries(pkg.exports ?? { '.': './dist/index.js' })) {
        if (subpath === './package.json') continue;
        const dist = typeof target === 'string' ? target : (target as { default: string }).default;
        const base = posix.basename(dist, '.js');
        // tsup.config.ts names each built file's source (`'dry-run': 'src/dry-run-entry.ts'`)
        const named = new RegExp(`['"]?${base}['"]?\\s*:\\s*['"](src/[^'"]+)['"]`).exec(tsup);
        const source = join(dir, named?.[1] ?? `src/${base}.ts`);
        out.push({
          key: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
          pkg: pkg.name,
          dir,
          source,
          dist: posix.normalize(dist),
        });
      }
    }
  }
  return out;
}

/** A module specifier (`./x.js`) to the source file it stands for. */
function sourceOf(from: string, spec: string, read: Read): string | undefined {
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.[mc]?js$/, '');
  for (const file of [`${stem}.ts`, `${stem}.mts`, base, `${base}.ts`, join(base, 'index.ts')])
    if (read(file) !== undefined) return file;
  return undefined;
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

function bindingNames(name: ts.BindingName, out: string[] = []): string[] {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
  return out;
}

/**
 * The names a module exports, following `export *` into its own files, and into other
 * packages' entries through `entryOf` (each such name remembers the entry it comes from).
 */
export function exportedNames(
  file: string,
  read: Read,
  entryOf: (spec: string) => Entry | undefined,
  seen = new Set<string>(),
): Exported[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = read(file);
  if (text === undefined) throw new Error(`cannot read ${file}`);
  const out: Exported[] = [];
  for (const stmt of parse(file, text).statements) {
    if (ts.isExportDeclaration(stmt)) {
      const spec =
        stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier)
          ? stmt.moduleSpecifier.text
          : undefined;
      if (stmt.exportClause && ts.isNamedExports(stmt.exportClause))
        for (const el of stmt.exportClause.elements) out.push({ name: el.name.text });
      else if (stmt.exportClause) out.push({ name: stmt.exportClause.name.text });
      else if (spec?.startsWith('.')) {
        const target = sourceOf(file, spec, read);
        if (!target) throw new Error(`${file}: cannot resolve ${spec}`);
        // `export *` passes on everything but the default export
        for (const e of exportedNames(target, read, entryOf, seen))
          if (e.name !== 'default') out.push(e);
      } else if (spec) {
        const entry = entryOf(spec);
        if (!entry)
          throw new Error(`${file}: export * from ${spec}, not an entry of this repository`);
        for (const e of exportedNames(entry.source, read, entryOf, new Set()))
          if (e.name !== 'default') out.push({ name: e.name, from: entry.key });
      }
    } else if (ts.isExportAssignment(stmt)) {
      out.push({ name: stmt.isExportEquals ? '=' : 'default' });
    } else if (!hasModifier(stmt, ts.SyntaxKind.ExportKeyword)) {
      // not exported
    } else if (hasModifier(stmt, ts.SyntaxKind.DefaultKeyword)) {
      out.push({ name: 'default' });
    } else if (ts.isVariableStatement(stmt)) {
      for (const decl of stmt.declarationList.declarations)
        for (const name of bindingNames(decl.name)) out.push({ name });
    } else if (
      (ts.isFunctionDeclaration(stmt) ||
        ts.isClassDeclaration(stmt) ||
        ts.isInterfaceDeclaration(stmt) ||
        ts.isTypeAliasDeclaration(stmt) ||
        ts.isEnumDeclaration(stmt) ||
        ts.isModuleDeclaration(stmt) ||
        ts.isImportEqualsDeclaration(stmt)) &&
      stmt.name &&
      ts.isIdentifier(stmt.name)
    ) {
      out.push({ name: stmt.name.text });
    }
  }
  // one entry per name (overloads and declaration merging declare a name twice)
  return [...new Map(out.map((e) => [e.name, e])).values()];
}

/** Source, test, bench and script files that may import a package. */
export function importingFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.([mc]?ts|tsx|[mc]?js)$/.test(name) && !/\.d\.[mc]?ts$/.test(name)) out.push(path);
    }
  };
  for (const top of ['packages', 'plugins', 'test', 'scripts']) walk(join(root, top));
  return out;
}

/**
 * Maps what a file imports to an entry key: a package specifier (`@switchyard/x`,
 * `@switchyard/x/dry-run`), a path to a built entry (`../../packages/x/dist/index.js`,
 * `…/node_modules/@switchyard/x/dist/index.js`), as the bench scripts import them, or a path
 * to an entry's source (`../../plugins/x/src/index.js`), as some tests do.
 */
export function entryResolver(entries: Entry[], root: string): (spec: string) => Entry | undefined {
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const byDist = new Map(entries.map((e) => [posix.join(relative(root, e.dir), e.dist), e]));
  const byPkgDist = new Map(entries.map((e) => [`${e.pkg}/${e.dist}`, e]));
  const bySource = new Map(entries.map((e) => [relative(root, e.source), e]));
  return (spec) => {
    const direct = byKey.get(spec);
    if (direct) return direct;
    const path = posix.normalize(spec.replace(/\\/g, '/'));
    const inRepo = /(?:^|\/)((?:packages|plugins)\/[\w.-]+\/dist\/[\w.-]+\.js)$/.exec(path);
    if (inRepo) return byDist.get(inRepo[1] as string);
    const installed = /(?:^|\/)(@switchyard\/[\w.-]+\/dist\/[\w.-]+\.js)$/.exec(path);
    if (installed) return byPkgDist.get(installed[1] as string);
    // a test reaching into a package's source entry (`../../plugins/x/src/index.js`)
    const source = /(?:^|\/)((?:packages|plugins)\/[\w.-]+\/src\/[\w./-]+?)\.[mc]?[jt]s$/.exec(
      path,
    );
    if (source) return bySource.get(`${source[1]}.ts`);
    return undefined;
  };
}

/**
 * Adds to `uses` every name `file` imports from an entry: named and type imports, default
 * imports, re-exports, `import type` queries, namespace imports (the properties read on the
 * namespace), dynamic imports (destructured, read as properties, or bound to a namespace), and
 * the imports of code a script writes into a template string to run in a child process. A
 * namespace or module object that leaves the file's sight is an opaque use: all of its names.
 */
export function collectUses(
  file: string,
  text: string,
  entryOf: (spec: string) => Entry | undefined,
  uses: Uses,
): void {
  const source = parse(file, text);
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const add = (key: string, name: string) => {
    uses.names.set(key, (uses.names.get(key) ?? new Set()).add(name));
  };
  const opaque = (key: string, node: ts.Node, what: string) => {
    add(key, '*');
    uses.opaque.push({ key, file, line: lineOf(node), what });
  };

  /** The strings an expression is built from, joined as a path (`join(root, 'packages/x/dist/index.js')`). */
  const pathOf = (expr: ts.Expression): string | undefined => {
    if (ts.isStringLiteralLike(expr)) return expr.text;
    if (ts.isIdentifier(expr)) {
      const decl = variableNamed(source, expr.text);
      return decl?.initializer ? pathOf(decl.initializer) : undefined;
    }
    const parts: string[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isStringLiteralLike(n)) parts.push(n.text);
      else if (ts.isTemplateExpression(n)) parts.push(n.head.text);
      else if (ts.isTemplateSpan(n)) parts.push(n.literal.text);
      ts.forEachChild(n, visit);
    };
    visit(expr);
    return parts.length > 0 ? parts.join('/') : undefined;
  };

  /** Names read from a module object bound to `binding`, seen within `scope`. */
  const fromBinding = (key: string, binding: ts.BindingName, scope: ts.Node) => {
    if (ts.isIdentifier(binding)) namespaceUses(key, binding, scope);
    else if (ts.isObjectBindingPattern(binding))
      for (const el of binding.elements) {
        const prop = el.propertyName ?? el.name;
        if (el.dotDotDotToken || !(ts.isIdentifier(prop) || ts.isStringLiteral(prop)))
          opaque(key, el, 'a rest or computed element of a destructured module');
        else add(key, prop.text);
      }
    else opaque(key, binding, 'an array pattern over a module');
  };

  /** The uses of a namespace bound to `id`: `ns.name`, `ns['name']`, `ns.Type`, `const { a } = ns`. */
  const namespaceUses = (key: string, id: ts.Identifier, scope: ts.Node) => {
    const visit = (n: ts.Node) => {
      if (ts.isIdentifier(n) && n.text === id.text && n !== id && isReference(n)) {
        const p = n.parent;
        if (ts.isPropertyAccessExpression(p) && p.expression === n) add(key, p.name.text);
        else if (
          ts.isElementAccessExpression(p) &&
          p.expression === n &&
          ts.isStringLiteralLike(p.argumentExpression)
        )
          add(key, p.argumentExpression.text);
        else if (ts.isQualifiedName(p) && p.left === n) add(key, p.right.text);
        else if (ts.isVariableDeclaration(p) && p.initializer === n)
          fromBinding(key, p.name, scope);
        else opaque(key, n, `the namespace ${id.text} passed on whole`);
      }
      ts.forEachChild(n, visit);
    };
    visit(scope);
  };

  const dynamicImport = (call: ts.CallExpression, key: string) => {
    let up: ts.Node = call;
    // `import(x).catch(…)` still yields the module
    for (;;) {
      const p = up.parent;
      if (ts.isAwaitExpression(p) || ts.isParenthesizedExpression(p)) up = p;
      else if (
        ts.isPropertyAccessExpression(p) &&
        p.name.text === 'catch' &&
        ts.isCallExpression(p.parent) &&
        p.parent.expression === p
      )
        up = p.parent;
      else break;
    }
    const p = up.parent;
    const then =
      ts.isPropertyAccessExpression(p) &&
      p.name.text === 'then' &&
      ts.isCallExpression(p.parent) &&
      p.parent.expression === p
        ? p.parent.arguments[0]
        : undefined;
    if (ts.isVariableDeclaration(p) && p.initializer === up) fromBinding(key, p.name, scopeOf(p));
    else if (
      then &&
      (ts.isArrowFunction(then) || ts.isFunctionExpression(then)) &&
      then.parameters[0]
    )
      fromBinding(key, then.parameters[0].name, then);
    else if (ts.isPropertyAccessExpression(p) && p.expression === up && !then)
      add(key, p.name.text);
    else opaque(key, call, 'a dynamic import whose module is not destructured or read');
  };

  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const entry = entryOf(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (entry && clause) {
        if (clause.name) add(entry.key, 'default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements) add(entry.key, (el.propertyName ?? el.name).text);
        else if (bindings) namespaceUses(entry.key, bindings.name, source);
      }
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const entry = entryOf(node.moduleSpecifier.text);
      if (entry) {
        if (node.exportClause && ts.isNamedExports(node.exportClause))
          for (const el of node.exportClause.elements)
            add(entry.key, (el.propertyName ?? el.name).text);
        else
          uses.reexports.push({
            key: entry.key,
            file,
            line: lineOf(node),
            what: 'export * of a whole entry',
          });
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      const path = pathOf(node.arguments[0]);
      const entry = path === undefined ? undefined : entryOf(path);
      if (entry) dynamicImport(node, entry.key);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      const entry = ts.isStringLiteral(literal) ? entryOf(literal.text) : undefined;
      if (entry) {
        const q = node.qualifier;
        if (q) add(entry.key, firstName(q));
        else opaque(entry.key, node, 'a type of the whole module');
      }
    } else if (ts.isTemplateExpression(node) && /\bimport\b/.test(node.getText(source))) {
      // a script written into a string: read its imports with the paths it interpolates
      let code = node.head.text;
      for (const span of node.templateSpans) {
        const path = pathOf(span.expression);
        code += (path === undefined ? '__' : JSON.stringify(path)) + span.literal.text;
      }
      collectUses(`${file}:${lineOf(node)}.mjs`, code, entryOf, uses);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function firstName(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : firstName(name.left);
}

/** Whether an identifier refers to a binding (not a property name or another declaration's name). */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isPropertySignature(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p) ||
      ts.isGetAccessor(p) ||
      ts.isSetAccessor(p) ||
      ts.isEnumMember(p) ||
      ts.isBindingElement(p) ||
      ts.isVariableDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isClassDeclaration(p) ||
      ts.isImportSpecifier(p) ||
      ts.isExportSpecifier(p) ||
      ts.isNamespaceImport(p) ||
      ts.isImportClause(p) ||
      ts.isLabeledStatement(p)) &&
    (p as ts.NamedDeclaration).name === id
  )
    return false;
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  if (ts.isExportSpecifier(p) && p.propertyName === id) return true;
  return true;
}

/** The block a declaration is visible in. */
function scopeOf(decl: ts.Node): ts.Node {
  let n: ts.Node = decl.parent;
  while (!ts.isBlock(n) && !ts.isSourceFile(n) && !ts.isFunctionLike(n) && !ts.isModuleBlock(n))
    n = n.parent;
  return n;
}

function variableNamed(source: ts.SourceFile, name: string): ts.VariableDeclaration | undefined {
  let found: ts.VariableDeclaration | undefined;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === name) found = n;
    else ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

export interface EntryReport {
  entry: Entry;
  exported: Exported[];
  /** Names imported from the entry by other packages, plugins, tests and scripts. */
  used: Set<string>;
  /** Exported names nobody outside the package imports. */
  unused: string[];
}

/**
 * For every entry: what it exports and which of those names other packages use. A name an
 * entry passes on from another package's entry (`export *`) counts as used there too.
 */
export function entryReports(
  entries: Entry[],
  files: { file: string; text: string }[],
  read: Read,
  entryOf: (spec: string) => Entry | undefined,
): { reports: EntryReport[]; opaque: OpaqueUse[] } {
  const byPkgDir = (file: string) => entries.find((e) => file.startsWith(`${e.dir}/`))?.pkg;
  const used = new Map<string, Set<string>>();
  const opaque: OpaqueUse[] = [];
  // the modules each entry's names come from, in its own package
  const chains = new Set<string>();
  const exported = new Map(
    entries.map((e) => [e.key, exportedNames(e.source, read, entryOf, chains)] as const),
  );
  for (const { file, text } of files) {
    const own = byPkgDir(file);
    const uses = newUses();
    collectUses(file, text, entryOf, uses);
    for (const r of uses.reexports)
      if (!chains.has(file)) {
        uses.names.set(r.key, (uses.names.get(r.key) ?? new Set()).add('*'));
        uses.opaque.push(r);
      }
    for (const [key, names] of uses.names) {
      if (entryOf(key)?.pkg === own) continue; // a package's use of itself does not count
      used.set(key, new Set([...(used.get(key) ?? []), ...names]));
    }
    opaque.push(...uses.opaque.filter((o) => entryOf(o.key)?.pkg !== own));
  }
  // names used through a re-exporting entry are used in the entry they come from
  for (let changed = true; changed; ) {
    changed = false;
    for (const e of entries) {
      const names = used.get(e.key);
      if (!names) continue;
      for (const x of exported.get(e.key) ?? []) {
        if (!x.from || !(names.has(x.name) || names.has('*'))) continue;
        const there = used.get(x.from) ?? new Set<string>();
        if (!there.has(x.name)) {
          used.set(x.from, there.add(x.name));
          changed = true;
        }
      }
    }
  }
  const reports = entries.map((entry) => {
    const names = used.get(entry.key) ?? new Set<string>();
    const list = exported.get(entry.key) ?? [];
    const unused = names.has('*')
      ? []
      : list
          .map((x) => x.name)
          .filter((n) => !names.has(n))
          .sort();
    return { entry, exported: list, used: names, unused };
  });
  return { reports, opaque };
}
