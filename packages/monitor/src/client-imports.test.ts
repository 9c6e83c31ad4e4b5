import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The page's script is bundled for the browser from src/client alone: it may name a server
// module only in a type import, and only one of types only, so no server code is bundled.
const src = dirname(fileURLToPath(import.meta.url));
const clientDir = join(src, 'client');

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);

/** Each import and re-export of a file: where it points and whether it is type-only. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const out: { target: string; typeOnly: boolean }[] = [];
  for (const statement of parse(file).statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier))
      out.push({
        target: statement.moduleSpecifier.text,
        typeOnly: statement.importClause?.isTypeOnly === true,
      });
    else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      out.push({ target: statement.moduleSpecifier.text, typeOnly: statement.isTypeOnly });
  }
  return out;
}

/** Whether a module compiles to nothing: only types, no imports of its own. */
function typesOnly(file: string): boolean {
  const js = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, removeComments: true },
  }).outputText;
  return js.replace(/export\s*\{\s*\};?/g, '').trim() === '' && importsOf(file).length === 0;
}

describe('the page script', () => {
  const files = readdirSync(clientDir)
    .filter((name) => name.endsWith('.ts') && !name.includes('.test.'))
    .map((name) => join(clientDir, name));

  it('imports nothing from outside src/client but types of a module of types only', () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const { target, typeOnly } of importsOf(file)) {
        const path = resolve(dirname(file), target.replace(/\.js$/, '.ts'));
        const inside = target.startsWith('.') && !relative(clientDir, path).startsWith('..');
        if (inside) continue;
        const at = `${relative(src, file)} -> ${target}`;
        expect(target.startsWith('.'), `${at}: a package`).toBe(true);
        expect(typeOnly, `${at}: not a type import`).toBe(true);
        expect(typesOnly(path), `${at}: not a module of types only`).toBe(true);
        outside.push(relative(src, path));
      }
    }
    // The task card is the one type the page shares with the server.
    expect([...new Set(outside)]).toEqual(['task-card.ts']);
  });

  it('tells a module with code from one of types only', () => {
    expect(typesOnly(join(src, 'task-card.ts'))).toBe(true);
    expect(typesOnly(join(src, 'snapshot-tasks.ts'))).toBe(false);
  });
});
