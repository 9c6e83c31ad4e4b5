#!/usr/bin/env node
// Lists the functions (declarations, methods, function expressions and arrow functions) of the
// packages' and plugins' sources that span more than a number of lines (80 unless given), longest
// first. A nested function is measured on its own and also counts in the lines of its parent.
//   node scripts/long-functions.mjs [max-lines] [--count]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { packageSourceFiles } from './source-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const maxLines = Number(args.find((a) => /^\d+$/.test(a)) ?? 80);
const countOnly = args.includes('--count');

/** The name a reader would look for: the declaration's own, or the variable/property it is assigned to. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent))
    return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

function longFunctionsOf(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxLines)
        found.push({ file: relative(root, file), line: start + 1, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const all = packageSourceFiles(root).flatMap(longFunctionsOf);
all.sort((a, b) => b.lines - a.lines);
if (!countOnly)
  for (const f of all)
    console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
console.log(`${all.length} functions over ${maxLines} lines`);
