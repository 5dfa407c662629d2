/**
 * The floors of ../shared/DESIGN.md as a test: every import (static, `export … from`, dynamic
 * `import()`, type-only included) of every source file goes to its own room or to a room on a
 * lower floor, never up, and product code never imports `tests/`. Imports are read with
 * TypeScript's `preProcessFile` (a scanner, no type checking), so the whole tree takes well
 * under a second. Import cycles are `npm run check:cycles`' job (dpdm).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Rooms from the top floor down: a file may import from its own room and from any room after it.
 * - `experiments/` is above `viewer/` (the CLI starts the viewer; issue 29: "viewer/, a floor below
 *   experiments/").
 * - `results/` (run-record schema, results readers/writers; created in round 3) sits below
 *   `experiments/` and `viewer/`, which both read through it, and above `models/` and `corpus/`
 *   (DESIGN.md's floor plan). It needs no entry elsewhere: the rule applies as soon as it exists.
 * - `util/` is the tiny bottom room DESIGN.md allows for shared helpers (file locks, atomic writes).
 */
const FLOORS = ["bin", "experiments", "viewer", "graphs", "judges", "retrieval", "results", "models", "corpus", "util"] as const;

/**
 * Known arrows up (none since the run-record schema and the results reader moved into `results/`).
 * An entry that no longer matches an import fails the test, so it cannot go stale.
 * Format: "importing file -> imported file" (paths from the repository root).
 */
const KNOWN_UPWARD: readonly string[] = [];

/** Bench scripts may read test fixtures (shared parity data); nothing else in the product may. */
const TESTS_IMPORT_ALLOWED = (file: string) => file.startsWith("experiments/bench/");

/** A file's room: its first path segment when that is one of {@link FLOORS}, else null. */
function roomOf(path: string): string | null {
  const top = path.split("/")[0];
  return (FLOORS as readonly string[]).includes(top) ? top : null;
}

/** Relative specifiers imported by `text` (bare package names are skipped). */
function relativeImports(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => f.fileName).filter((s) => s.startsWith("./") || s.startsWith("../"));
}

/**
 * The violations of the floor rule among `edges` (importing file → imported file, root-relative
 * with "/"): an import into a higher room, or into `tests/` from product code.
 */
function floorViolations(edges: readonly (readonly [string, string])[]): string[] {
  const rank = (room: string) => (FLOORS as readonly string[]).indexOf(room);
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = roomOf(from);
    if (!a) continue;
    if (to.startsWith("tests/")) {
      if (!TESTS_IMPORT_ALLOWED(from)) out.push(`${from} -> ${to}`);
      continue;
    }
    const b = roomOf(to);
    if (b && b !== a && rank(b) < rank(a)) out.push(`${from} -> ${to}`);
  }
  return out.sort();
}

/** Source files (.ts, .js, .mjs) under the rooms that exist, root-relative with "/". */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules") continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(relative(ROOT, p).split(sep).join("/"));
    }
  };
  for (const room of FLOORS) {
    try {
      if (statSync(join(ROOT, room)).isDirectory()) walk(join(ROOT, room));
    } catch {
      /* room not created yet (results/, util/) */
    }
  }
  return out.sort();
}

/** Every relative import edge of the source tree. */
function importEdges(): [string, string][] {
  const edges: [string, string][] = [];
  for (const file of sourceFiles()) {
    for (const spec of relativeImports(readFileSync(join(ROOT, file), "utf8"))) {
      edges.push([
        file,
        relative(ROOT, resolve(ROOT, dirname(file), spec))
          .split(sep)
          .join("/"),
      ]);
    }
  }
  return edges;
}

describe("layer rule (floors of DESIGN.md)", () => {
  it("finds an arrow up, a test import and a dynamic import (the checker itself)", () => {
    expect(relativeImports(`import type { A } from "../experiments/x.ts";\nexport { b } from "./b.ts";\nconst m = await import("../../viewer/y.ts");\nimport "zod";`)).toEqual([
      "../experiments/x.ts",
      "./b.ts",
      "../../viewer/y.ts",
    ]);
    expect(
      floorViolations([
        ["viewer/server.ts", "experiments/results-store.ts"], // up: viewer is below experiments
        ["corpus/a.ts", "models/b.ts"], // up: corpus is the lowest product room
        ["results/record.ts", "judges/judge.ts"], // up: results is below judges
        ["retrieval/x.ts", "tests/helpers/y.ts"], // product code importing tests
        ["experiments/cli/viewer-commands.ts", "viewer/server.ts"], // down: fine
        ["viewer/run-index.ts", "results/reader.ts"], // down: fine
        ["experiments/bench/metrics.ts", "tests/fixtures/parity/pairs.ts"], // benches may read fixtures
        ["graphs/a.ts", "graphs/nodes/b.ts"], // same room
      ]),
    ).toEqual(["corpus/a.ts -> models/b.ts", "results/record.ts -> judges/judge.ts", "retrieval/x.ts -> tests/helpers/y.ts", "viewer/server.ts -> experiments/results-store.ts"]);
  });

  it("no import runs up a floor, except the known ones listed for removal", () => {
    const edges = importEdges();
    expect(edges.length).toBeGreaterThan(500); // the scan really read the tree
    const violations = floorViolations(edges);
    const unexpected = violations.filter((v) => !KNOWN_UPWARD.includes(v));
    const stale = KNOWN_UPWARD.filter((v) => !violations.includes(v));
    expect(unexpected, "imports that run up a floor (see FLOORS in tests/layers.test.ts and ../shared/DESIGN.md)").toEqual([]);
    expect(stale, "KNOWN_UPWARD entries that no longer occur: remove them from tests/layers.test.ts").toEqual([]);
  });
});
