// Every package under libs/ and services/ imports its own modules one way: no cycles among a package's files,
// type-only imports and re-exports included (a type cycle still couples the modules and is one edit from a
// runtime one). Imports are read with TypeScript's own pre-processor, so comments and strings never count.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = join(import.meta.dir, "..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The file a relative specifier names, as Bun resolves it (exact, then .ts, then a folder's index.ts). */
function resolveRelative(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Edges from each file of the package to the package's files it imports or re-exports (type-only included). */
function importGraph(packageDir: string): Map<string, string[]> {
  const files = sourceFiles(packageDir);
  const inside = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((f) => f.fileName)
      .filter((s) => s.startsWith("./") || s.startsWith("../"))
      .map((s) => resolveRelative(file, s))
      .filter((t): t is string => t !== null && inside.has(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Each cycle once, as the files around it (paths relative to `base`), found with Tarjan's strongly connected components. */
function importCycles(packageDir: string, base = packageDir): string[][] {
  const graph = importGraph(packageDir);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const selfImport = (graph.get(v) ?? []).includes(v);
    if (component.length > 1 || selfImport) cycles.push(component.map((f) => relative(base, f)).sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

const packages = ["libs", "services"].flatMap((group) =>
  readdirSync(join(root, group))
    .filter((name) => existsSync(join(root, group, name, "package.json")))
    .map((name) => `${group}/${name}`),
);

describe("import direction inside each package", () => {
  test("the packages are found", () => {
    expect(packages).toEqual(expect.arrayContaining(["libs/bus", "libs/testing", "services/items", "services/gateway"]));
  });

  test.each(packages)("%s has no import cycle", (pkg) => {
    expect(importCycles(join(root, pkg), root)).toEqual([]);
  });

  test("the checker sees cycles through type-only imports and re-exports, and not through comments", () => {
    const dir = mkdtempSync(join(tmpdir(), "trove-cycles-"));
    try {
      writeFileSync(join(dir, "a.ts"), `import type { B } from "./b.ts";\nexport type A = { b?: B };\n`);
      writeFileSync(join(dir, "b.ts"), `export * from "./c";\nexport type B = number;\n`);
      writeFileSync(join(dir, "c.ts"), `import { type A } from "./a.ts";\nexport const c = (a: A) => a;\n`);
      writeFileSync(join(dir, "d.ts"), `// import { c } from "./e.ts"\nexport const s = 'import { e } from "./e.ts"';\n`);
      writeFileSync(join(dir, "e.ts"), `export { s } from "./d.ts";\n`);
      writeFileSync(join(dir, "f.ts"), `export { f } from "./f.ts";\nexport const f = 1;\n`);
      expect(importCycles(dir)).toEqual(expect.arrayContaining([["a.ts", "b.ts", "c.ts"], ["f.ts"]]));
      expect(importCycles(dir).length).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
