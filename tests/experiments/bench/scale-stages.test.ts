/** `--stages` of the scale bench (experiments/bench/scale.ts): all by default, a named subset, unknown names rejected by name. */
import { describe, expect, it } from "vitest";
import { parseStages, STAGES } from "../../../experiments/bench/scale.ts";

describe("scale bench --stages", () => {
  it("defaults to every stage; keeps a named subset; names unknown stages", () => {
    expect([...parseStages(undefined)]).toEqual([...STAGES]);
    expect([...parseStages("all")]).toEqual(["ingest", "bm25", "cli", "query", "dense", "bm25s"]);
    expect([...parseStages("ingest, bm25,query")]).toEqual(["ingest", "bm25", "query"]);
    expect(() => parseStages("ingest,gen,dens")).toThrow("--stages: unknown stage(s) gen, dens (expected a comma-separated subset of ingest, bm25, cli, query, dense, bm25s)");
  });
});
