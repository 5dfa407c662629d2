/**
 * The id lists the CLI's help text shows (experiments/cli/help-ids.ts, kept as constants so that
 * `--help` loads no registry) equal the registries' own lists. Fails when a mode, embedder,
 * reranker or workflow is added to a registry but not to help-ids.ts.
 */
import { describe, expect, it } from "vitest";
import { HELP_DEFAULT_RETRIEVER_EMBEDDER_ID, HELP_EMBEDDER_IDS, HELP_RERANKER_IDS, HELP_RETRIEVAL_MODES, HELP_WORKFLOW_IDS } from "../../experiments/cli/help-ids.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID, EMBEDDER_IDS, RERANKER_IDS, RETRIEVAL_MODES } from "../../retrieval/registry.ts";
import { listWorkflowIds } from "../../graphs/registry.ts";

describe("help-ids.ts mirrors the registries", () => {
  it("retrieval modes, embedders, default embedder, rerankers", () => {
    expect([...HELP_RETRIEVAL_MODES]).toEqual([...RETRIEVAL_MODES]);
    expect([...HELP_EMBEDDER_IDS]).toEqual([...EMBEDDER_IDS]);
    expect(HELP_DEFAULT_RETRIEVER_EMBEDDER_ID).toBe(DEFAULT_RETRIEVER_EMBEDDER_ID);
    expect([...HELP_RERANKER_IDS]).toEqual([...RERANKER_IDS]);
  });
  it("workflow ids, in registry order", () => {
    expect([...HELP_WORKFLOW_IDS]).toEqual(listWorkflowIds());
  });
});
