/**
 * A `lance:` store folder is checked on the file system before anything connects to it: reads
 * never create a database, and `run --dry-run` (pathAndEmbedderIssues) refuses an absolute or
 * relative folder that holds no store the same way.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localStorePath, localStoreProblem, openLanceRecordStore } from "../../../corpus/store/lance-store.ts";
import { pathAndEmbedderIssues } from "../../../experiments/wiring.ts";
import { parseExperimentConfig } from "../../../experiments/config.ts";

const cfg = (corpus: string) =>
  parseExperimentConfig({ name: "p", output: "run", datasets: [{ name: "medevidence" }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "standard-rag" }], retrieval: { corpus } });

describe("local store folders", () => {
  it("a folder holds a store when its store_meta table is there; object storage is left to LanceDB", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-pre-"));
    const store = join(dir, "store");
    mkdirSync(join(store, "store_meta.lance"), { recursive: true });
    mkdirSync(join(dir, "empty"));
    expect(localStoreProblem(store)).toBeNull();
    expect(localStoreProblem(`file://${store}`)).toBeNull();
    expect(localStoreProblem("s3://bucket/store")).toBeNull();
    expect(localStorePath("gs://b/p")).toBeNull();
    expect(localStoreProblem(join(dir, "empty"))).toMatch(new RegExp(`^${join(dir, "empty")}: no medsynth corpus store here`));
    expect(localStoreProblem(join(dir, "no", "ns"))).toMatch(/: no medsynth corpus store here/);
    expect(localStoreProblem("")).toMatch(/^the corpus store location is empty/);
    writeFileSync(join(dir, "q.json"), "[]");
    expect(localStoreProblem(join(dir, "q.json"))).toBe(
      `${join(dir, "q.json")} is a file, not a corpus store (a store is a folder made by \`node bin/medsynth.js corpus ingest <files> --store <folder>\`); a JSONL corpus file is given without \`lance:\``,
    );
  });

  it("a store on object storage that cannot be reached: one line naming the URI and LanceDB's first words, no Rust source paths", async () => {
    const connect = async () => {
      throw new Error(
        "lance error: Generic S3 error: bucket nonexistent-bucket-xyz not found, /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/lance-io-0.31.0/src/object_store.rs:133:40\nCaused by: …",
      );
    };
    await expect(openLanceRecordStore({ uri: "s3://nonexistent-bucket-xyz/store" }, connect as never)).rejects.toThrow(
      /^corpus store s3:\/\/nonexistent-bucket-xyz\/store: cannot be read \(lance error: Generic S3 error: bucket nonexistent-bucket-xyz not found\); check the URI and its storage options or credentials \(docs\/pubmed-store\.md\)$/,
    );
  });

  it("opening a missing store for reading throws naming the path and never connects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-pre-"));
    let connects = 0;
    const connect = async () => {
      connects++;
      throw new Error("connect called");
    };
    await expect(openLanceRecordStore({ uri: join(dir, "ns") }, connect)).rejects.toThrow(`${join(dir, "ns")}: no medsynth corpus store here`);
    expect(connects).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("run --dry-run's check refuses absolute and relative lance: folders without a store alike", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-pre-"));
    mkdirSync(join(dir, "empty"));
    mkdirSync(join(dir, "store", "store_meta.lance"), { recursive: true });
    const corpusIssues = (corpus: string) => pathAndEmbedderIssues(cfg(corpus)).filter((i) => i.path === "retrieval.corpus");
    expect(corpusIssues(`lance:${join(dir, "nostore")}`)).toEqual([
      { path: "retrieval.corpus", message: expect.stringMatching(new RegExp(`^${join(dir, "nostore")}: no medsynth corpus store here`)) },
    ]);
    expect(corpusIssues(`lance:${join(dir, "empty")}`)).toHaveLength(1);
    expect(corpusIssues("lance:typo-store-that-is-not-here")[0].message).toMatch(/^typo-store-that-is-not-here: no medsynth corpus store here .*\(relative paths are read from /);
    expect(corpusIssues("lance:")[0].message).toMatch(/the corpus store location is empty/);
    expect(corpusIssues(`lance:${join(dir, "store")}`)).toEqual([]);
    expect(corpusIssues("s3://bucket/store")).toEqual([]);
  });
});
