import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Lists the functions of src/ longer than a number of lines (default 80), longest first:
 * `tsx scripts/function-lengths.ts [min-lines] [folder]`. A function is a declaration, method,
 * accessor, constructor, function expression or arrow function; its length runs from its first to
 * its last line. A function inside another counts for itself and within the one around it.
 */
const min = Number(process.argv[2] ?? 80);
const root = process.argv[3] ?? 'src';
if (!Number.isInteger(min) || min < 1) throw new Error(`min-lines must be a positive integer, not ${process.argv[2]}`);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isFunctionExpression(node)) && node.name !== undefined) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

const found: { lines: number; where: string; name: string }[] = [];
for (const path of sourceFiles(root)) {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > min) found.push({ lines, where: `${relative('.', path)}:${first + 1}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
found.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where));
for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.where}  ${f.name}`);
