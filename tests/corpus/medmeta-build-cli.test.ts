/**
 * `medsynth datasets build-medmeta` end to end through the real CLI against the fake
 * E-utilities/PMC server: the hand-written review is kept, a review without a PMCID is skipped with
 * its reason, `--prepare` fetches the included studies' abstracts and noise, and the MedMeta loader
 * reads the rows with their golden abstracts; a re-run from `--reviews-file` comes from the cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMedMeta } from "../../corpus/datasets/medmeta.ts";
import { startFakeEutils, type FakeEutilsServer, type FakePubmedEntry } from "../helpers/fake-eutils-server.ts";
import { reviewPubmedEntry, STATIN_REVIEW, STATIN_REVIEW_JATS } from "./medmeta-build-fixtures.ts";
import type { BuildMedMetaReport } from "../../corpus/medmeta-build/build.ts";
import type { MedMetaPrepareReport } from "../../corpus/medmeta-prepare.ts";

const BIN = fileURLToPath(new URL("../../bin/medsynth.js", import.meta.url));

/** Run the CLI without blocking this process (the fake server answers from it). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("datasets build-medmeta (CLI, fake E-utilities/PMC)", () => {
  let fake: FakeEutilsServer;
  let dir: string;
  const NOT_IN_PMC = "40000001";

  beforeAll(async () => {
    const golden: FakePubmedEntry[] = STATIN_REVIEW.includedPmids.map((pmid, i) => ({
      pmid,
      date: `${2012 + (i % 6)}/04/01`,
      title: `Statin trial ${i + 1}`,
      abstract: [{ text: `Statin trial ${i + 1} found fewer strokes.` }],
    }));
    const noise: FakePubmedEntry[] = Array.from({ length: 12 }, (_, i) => ({
      pmid: String(32000000 + i),
      date: `${2012 + (i % 6)}/07/15`,
      title: `Other study ${i}`,
      abstract: [{ text: `Unrelated finding ${i}.` }],
    }));
    fake = await startFakeEutils([reviewPubmedEntry(STATIN_REVIEW.pmid, 2023, "Stroke"), ...golden, ...noise], {
      pmc: {
        pmcids: { [STATIN_REVIEW.pmid]: STATIN_REVIEW.pmcid },
        articles: { [STATIN_REVIEW.pmcid]: STATIN_REVIEW_JATS },
        citations: { [STATIN_REVIEW.citationKey]: "31000008" },
        terms: { [`${STATIN_REVIEW.doi}[doi]`]: ["31000007"], [`"${STATIN_REVIEW.b9Title}"[ti]`]: ["31000009"] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), "medmeta-build-cli-"));
  });
  afterAll(() => fake.close());

  it("builds the rows, prepares their golden abstracts + noise, and the loader reads both", async () => {
    const out = join(dir, "rows.csv");
    const prep = join(dir, "prepared");
    const r = await cli([
      "datasets",
      "build-medmeta",
      "--review",
      STATIN_REVIEW.pmid,
      NOT_IN_PMC,
      "--out",
      out,
      "--max-unresolved",
      "1",
      "--base-url",
      fake.url,
      "--idconv-url",
      fake.idconvUrl,
      "--prepare",
      "--noise",
      "5",
      "--prepare-out-dir",
      prep,
      "--json",
    ]);
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status).toBe(0);
    const { build, prepare } = JSON.parse(r.stdout) as { build: BuildMedMetaReport; prepare: MedMetaPrepareReport };
    expect(build.counts).toEqual({ kept: 1, dropped: 0, skipped: 1, failed: 0 });
    expect(build.reviews.find((v) => v.pmid === NOT_IN_PMC)).toMatchObject({ status: "skipped", reason: "no PMCID (PMC ID converter: Identifier not found in PMC)" });
    expect(prepare.golden).toMatchObject({ requested: 8, found: 8, missing: [] });
    expect(prepare.noise.sampled).toBe(5);

    const ds = await loadMedMeta({ path: out, abstracts: join(prep, "golden.jsonl") });
    expect(ds.items).toHaveLength(1);
    expect(ds.items[0].referenceConclusion).toBe(STATIN_REVIEW.conclusion);
    expect(ds.items[0].goldenPmids).toEqual([...STATIN_REVIEW.includedPmids]);
    expect(ds.items[0].goldenDocs.map((d) => d.id)).toEqual([...STATIN_REVIEW.includedPmids]);
    expect(ds.items[0].meta).toMatchObject({ goldenAbstracts: 8 });
  });

  it("re-runs from --reviews-file out of the cache, and prints the text report", async () => {
    const list = join(dir, "reviews.txt");
    writeFileSync(list, `# reviews\n${STATIN_REVIEW.pmid}\n\n${NOT_IN_PMC}  # not in PMC\n`);
    const before = fake.requests.length;
    const r = await cli(["datasets", "build-medmeta", "--reviews-file", list, "--out", join(dir, "rows.csv"), "--max-unresolved", "1", "--base-url", fake.url, "--idconv-url", fake.idconvUrl]);
    expect(r.status).toBe(0);
    expect(fake.requests.length).toBe(before);
    expect(r.stdout).toContain("0 fetched, 2 from the cache");
    expect(r.stdout).toContain("kept 1, dropped 0, skipped 1, failed 0");
    expect(r.stdout).toMatch(new RegExp(`${NOT_IN_PMC}\\s+skipped\\s+-\\s+-\\s+-\\s+-\\s+no PMCID`));
    expect(readFileSync(join(dir, "rows.csv"), "utf8").split("\n")[0]).toBe(
      "Number,Meta Analysis Name,URL,PMID,Conclusion,References,Date,Number of refs,PMCID,Year,Topic,Conclusion Source,Included From",
    );
  });
});
