/**
 * Route files stand alone: a file in `src/http/routes/` imports nothing from another route file. What two routes
 * share is a library below them (`src/launch/` for launch policy and admission, `src/http/records/` for the
 * records they answer with), so a route reads as the API it serves and no route's helpers become another's API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const ROUTES = 'src/http/routes';

/** Every import, re-export and dynamic import of `text` that points into the routes folder from another route file. */
export function siblingRouteImports(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const check = (spec: string) => {
    if (!spec.startsWith('.')) return;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    if (path.posix.dirname(target) === ROUTES || target === ROUTES) found.push(`${file} -> ${spec}`);
  };
  const visit = (n: ts.Node) => {
    if (
      (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    ) {
      check(n.moduleSpecifier.text);
    }
    if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    ) {
      check(n.arguments[0].text);
    }
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      check(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

it('finds a route importing a sibling route, whatever the form of the import', () => {
  const file = `${ROUTES}/plan.ts`;
  expect(siblingRouteImports(file, "import { assertLaunchAllowed } from './compute';")).toEqual([
    `${file} -> ./compute`,
  ]);
  expect(siblingRouteImports(file, "export { InstanceRecord } from './compute';")).toEqual([`${file} -> ./compute`]);
  expect(siblingRouteImports(file, "import type { ComputeDeps } from '../routes/compute';")).toEqual([
    `${file} -> ../routes/compute`,
  ]);
  expect(siblingRouteImports(file, "type D = import('./compute').ComputeDeps;")).toEqual([`${file} -> ./compute`]);
  expect(siblingRouteImports(file, "const m = await import('./compute');")).toEqual([`${file} -> ./compute`]);
  const library =
    "import { InstanceRecord } from '../records/instances';\n" +
    "import type { LaunchLibrary } from '../../launch/launches';";
  expect(siblingRouteImports(file, library)).toEqual([]);
});

it('src/http/routes/*.ts import nothing from each other', () => {
  const files = readdirSync(path.join(root, ROUTES)).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(10);
  const found = files.flatMap((f) =>
    siblingRouteImports(`${ROUTES}/${f}`, readFileSync(path.join(root, ROUTES, f), 'utf8')),
  );
  expect(found).toEqual([]);
});
