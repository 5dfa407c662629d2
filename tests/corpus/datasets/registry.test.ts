import { describe, expect, it, vi } from "vitest";
import { Command } from "commander";
import { DATASETS, datasetNames, getDataset, listDatasets, loadDataset } from "../../../corpus/datasets/registry.ts";
import { registerDatasetsCommands } from "../../../experiments/cli/datasets-register.ts";

const NAMES = [
  "pubmedqa",
  "medmeta",
  "medevidence",
  "ms2",
  "mslr",
  "cohen2006",
  "mslr-annotations",
  "rwe-glp1",
  "ohdsi-hcq",
  "corpus-store",
  "medconclusion-hf",
  "jsonl",
  "beir:nfcorpus",
  "beir:scifact",
  "beir:trec-covid",
];

async function runCli(args: string[]): Promise<string> {
  const program = new Command("medsynth").exitOverride();
  registerDatasetsCommands(program);
  const out: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  try {
    await program.parseAsync(["node", "medsynth", ...args]);
  } finally {
    spy.mockRestore();
  }
  return out.join("\n");
}

describe("dataset registry", () => {
  it("registers every dataset once, in order", () => {
    expect(datasetNames()).toEqual(NAMES);
    expect(Object.keys(DATASETS)).toEqual(NAMES);
  });

  it("throws listing valid names on an unknown dataset", async () => {
    expect(() => getDataset("pubmed-qa")).toThrow(`unknown dataset "pubmed-qa"; valid: ${NAMES.join(", ")}`);
    await expect(loadDataset("toString")).rejects.toThrow(/unknown dataset "toString"; valid: pubmedqa/);
  });

  it("rejects unknown options (strict schemas)", async () => {
    await expect(loadDataset("medmeta", { pathh: "x" })).rejects.toThrow(/pathh/);
  });

  it("lists item counts of every bundled dataset", async () => {
    const infos = await listDatasets({ withCounts: true });
    expect(Object.fromEntries(infos.map((i) => [i.name, i.itemCount]))).toEqual({
      pubmedqa: 1000,
      medmeta: 20,
      medevidence: 284,
      ms2: 1,
      mslr: null,
      cohen2006: 5,
      "mslr-annotations": 265,
      "rwe-glp1": 1,
      "ohdsi-hcq": 2,
      "corpus-store": null,
      "medconclusion-hf": null,
      jsonl: null,
      "beir:nfcorpus": null, // not downloaded in the test cache
      "beir:scifact": null,
      "beir:trec-covid": null,
    });
    expect((await listDatasets()).every((i) => i.itemCount === null)).toBe(true);
  });
});

describe("medsynth datasets CLI", () => {
  it("list --json prints the registry with counts", async () => {
    const j = JSON.parse(await runCli(["datasets", "list", "--json"]));
    const rows = j.datasets;
    expect(rows.map((r: { name: string }) => r.name)).toEqual(NAMES);
    expect(rows.find((r: { name: string }) => r.name === "mslr-annotations")).toMatchObject({ taskKind: "annotations", itemCount: 265, licence: "Apache-2.0" });
    expect(["cache", "mirror"]).toContain(rows.find((r: { name: string }) => r.name === "pubmedqa").where); // the suite's global setup made them available
    expect(rows.find((r: { name: string }) => r.name === "rwe-glp1")).toMatchObject({ where: "shipped", licence: "medsynth (Apache-2.0)" });
    expect(rows.find((r: { name: string }) => r.name === "jsonl")).toMatchObject({ where: "user file", itemCount: null });
    expect(j.downloads.map((d: { name: string }) => d.name)).toEqual([
      "cohen2006",
      "medevidence",
      "medmeta",
      "meta-analysis-case-study",
      "mslr-annotations",
      "ms2",
      "pubmed-xml",
      "pubmedqa",
      "ohdsi-hcq",
    ]);
    expect(j.downloads.find((d: { name: string }) => d.name === "pubmedqa")).toMatchObject({ files: 3, bytes: 1065 + 2584787 + 11414, licence: "MIT", upstreams: ["pubmedqa/pubmedqa@1cbae8e"] });
  });

  it("list prints a table", async () => {
    const text = await runCli(["datasets", "list", "--no-counts"]);
    expect(text.split("\n")[0]).toMatch(/^name\s+kind\s+items\s+where\s+licence\s+description$/);
    expect(text).toMatch(/\nohdsi-hcq\s+rwe\s+-\s+(cache|mirror)\s+not stated \(published study results\)\s+OHDSI/);
    expect(text).toMatch(/\ndownload\s+files\s+size\s+where\s+licence\s+upstream\n/);
    expect(text).toMatch(/\npubmed-xml\s+149\s+4\.5 MB\s+(cache|mirror)\s/);
  });

  it("show prints counts, warnings and first items; --json limits items", async () => {
    const text = await runCli(["datasets", "show", "medmeta", "--limit", "2"]);
    expect(text).toContain("items: 20");
    expect(text).toContain("warnings: 4");
    expect(text).toMatch(/row 2: conclusion does not match the title/);
    expect(text).toMatch(/\n {2}medmeta:2 {2}Does anticoagulation therapy/);
    const j = JSON.parse(await runCli(["datasets", "show", "pubmedqa", "--limit", "1", "--json"]));
    expect(j.count).toBe(1000);
    expect(j.items).toHaveLength(1);
    expect(j.items[0].id).toBe("pubmedqa:1571683"); // lowest PMID: items come in ascending PMID order
  });

  it("show on an unknown name throws with the valid names", async () => {
    await expect(runCli(["datasets", "show", "nope"])).rejects.toThrow(/valid: pubmedqa, medmeta/);
  });
});
