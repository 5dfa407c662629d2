/**
 * Issue 9 "done when": `datasets prepare medmeta` against a fake E-utilities server, then the
 * bundled medmeta.yaml run with the offline extractive baseline (no judge panel): the report shows
 * Golden-, Negated- and Standard-RAG on MedMeta items, with non-zero golden recall. And the
 * fallback when MedMeta has not been prepared.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { medsynthCommand, REPO_ROOT } from "../../corpus/paths.ts";
import { buildProgram } from "../../experiments/cli/main.ts";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { resolveCorpusSetting } from "../../experiments/wiring.ts";
import { loadCorpusArg } from "../../corpus/corpus-file.ts";
import { isCrossEncoderCached } from "../../retrieval/rerankers/cross-encoder.ts";
import { readResults } from "../../results/results-file.ts";
import { startFakeEutils, type FakeEutilsServer } from "../helpers/fake-eutils-server.ts";
import { medmetaFakePubmed, MISSING_GOLDEN_PMID } from "../helpers/fake-pubmed-medmeta.ts";

const quiet = () => {};
const savedPrepared = process.env.MEDSYNTH_PREPARED_DIR;

describe("medmeta.yaml on a prepared MedMeta corpus (fake E-utilities)", () => {
  let fake: FakeEutilsServer;
  beforeAll(async () => {
    fake = await startFakeEutils(medmetaFakePubmed());
    process.env.MEDSYNTH_PREPARED_DIR = mkdtempSync(join(tmpdir(), "medsynth-prepared-"));
  });
  afterAll(async () => {
    if (savedPrepared === undefined) delete process.env.MEDSYNTH_PREPARED_DIR;
    else process.env.MEDSYNTH_PREPARED_DIR = savedPrepared;
    await fake.close();
  });

  it("before preparing: the corpus setting falls back to bundled with a note; the CLI corpus loader names the prepare command", async () => {
    const r = resolveCorpusSetting("prepared:medmeta");
    expect(r.corpus).toBe("bundled");
    expect(r.note).toMatch(/has not been prepared/);
    expect(r.note).toContain(`Run \`${medsynthCommand()} datasets prepare medmeta\``);
    await expect(loadCorpusArg("prepared:medmeta", quiet)).rejects.toThrow(`run \`${medsynthCommand()} datasets prepare medmeta\``);
  });

  it("prepare, then run Golden-, Negated- and Standard-RAG on MedMeta rows 1–2 with non-zero golden recall", async () => {
    const out: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((l: string) => void out.push(l));
    const spyErr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await buildProgram().parseAsync(["node", "medsynth", "datasets", "prepare", "medmeta", "--rows", "1,2", "--noise", "40", "--base-url", fake.url]);
    } finally {
      spy.mockRestore();
      spyErr.mockRestore();
    }
    const printed = out.join("\n");
    expect(printed).toContain("golden abstracts: 11 of 12 included-study PMIDs");
    expect(printed).toMatch(new RegExp(`PMIDs PubMed no longer has \\(1\\):\\n  ${MISSING_GOLDEN_PMID}  \\(row 1\\)`));
    expect(printed).toContain("corpus: 51 documents");
    expect(resolveCorpusSetting("prepared:medmeta")).toEqual({ corpus: "prepared:medmeta", note: null });

    // The bundled config, with the offline extractive baseline, the rule negator, no judge panel,
    // and MedMeta rows 1–2 only.
    const cfg = YAML.parse(readFileSync(join(REPO_ROOT, "experiments", "configs", "medmeta.yaml"), "utf8"));
    expect(cfg.retrieval.corpus).toBe("prepared:medmeta");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-medmeta-run-"));
    const keep = ["golden-rag", "negated-rag", "standard-rag"];
    const workflows = (cfg.workflows as { id: string; datasets?: string[]; params?: Record<string, unknown> }[]).filter((w) => keep.includes(w.id));
    expect(workflows.map((w) => w.id).sort()).toEqual([...keep].sort());
    for (const w of workflows) expect(w.datasets).toContain("medmeta");
    const run = {
      ...cfg,
      output: join(dir, "run"),
      datasets: [{ name: "medmeta", ids: ["medmeta:1", "medmeta:2"] }],
      models: [{ id: "extractive:mmr" }],
      workflows: workflows.map((w) => ({ ...w, datasets: ["medmeta"], ...(w.id === "negated-rag" ? { params: { negator: "rule", fraction: 1 } } : {}) })),
      metrics: ["rouge"],
      comparisons: [],
    };
    delete run.panel;
    const file = join(dir, "medmeta-offline.yaml");
    writeFileSync(file, YAML.stringify(run));
    const errs: string[] = [];
    const spyRun = vi.spyOn(console, "error").mockImplementation((l: string) => void errs.push(String(l)));
    let summary: Awaited<ReturnType<typeof runCommand>>;
    try {
      summary = await runCommand(file, { progress: false }, quiet);
    } finally {
      spyRun.mockRestore();
    }
    // 2 items × (golden + negated + standard K=5 + standard K=10)
    expect(summary.totalCells).toBe(8);
    expect(summary.failed).toBe(0);

    const records = readResults(join(dir, "run", "results.jsonl")).records;
    expect(records.filter((r) => r.status === "ok")).toHaveLength(8);
    const golden = records.find((r) => r.workflow === "golden-rag" && r.itemId === "medmeta:1")!;
    expect(JSON.stringify(golden.intermediate)).toContain("37877587"); // answered from row 1's abstracts
    const recalls = records.filter((r) => r.workflow === "standard-rag").map((r) => (r.intermediate as { goldenRecall: number }).goldenRecall);
    expect(recalls).toHaveLength(4);
    // Row 1 has 7 golden PMIDs (6 in the corpus), row 2 has 5: recall is a count over those denominators.
    for (const x of recalls) expect([0, 1, 2, 3, 4, 5, 6, 7].some((n) => Math.abs(x - n / 7) < 1e-12) || [0, 1, 2, 3, 4, 5].some((n) => Math.abs(x - n / 5) < 1e-12)).toBe(true);

    const report = JSON.parse(readFileSync(join(dir, "run", "report.json"), "utf8"));
    const all = report.sections.flatMap((s: { tables: unknown[] }) => s.tables).find((t: { id: string }) => t.id === "all-synthesis");
    const recallOf = (variant: RegExp) => all.values.filter((v: { variant: string; column: string }) => variant.test(v.variant) && v.column === "goldenRecall");
    const std = recallOf(/^standard-rag/);
    expect(std).toHaveLength(2); // K = 5 and K = 10
    for (const v of std) {
      expect(v.n).toBe(2);
      expect(v.mean).toBeGreaterThan(0);
    }
    const variants = new Set(all.values.map((v: { variant: string }) => v.variant.split(" ")[0]));
    expect(variants).toEqual(new Set(["golden-rag", "negated-rag", "standard-rag"]));
    expect(readFileSync(join(dir, "run", "report.md"), "utf8")).toContain("goldenRecall");
    const env = JSON.parse(readFileSync(join(dir, "run", "env.json"), "utf8"));
    expect(env.retrievalCorpusUsed).toBe("prepared:medmeta");
    expect(env.retrievalCorpusNote).toBeNull();
    // Reranking is on in medmeta.yaml; without the BGE model locally the run says so once and goes on.
    const bge = "cross-encoder:Xenova/bge-reranker-base";
    const available = isCrossEncoderCached("Xenova/bge-reranker-base");
    expect(env.rerankers).toEqual([{ id: bge, available, note: available ? null : expect.stringContaining("runs without reranking") }]);
    const stdRecords = records.filter((r) => r.workflow === "standard-rag");
    for (const r of stdRecords) expect((r.intermediate as { reranker: string | null }).reranker).toBe(available ? bge : null);
    if (!available) expect(errs.filter((l) => l.includes(`reranker ${bge} is not available`))).toHaveLength(1);
  }, 240_000);
});
