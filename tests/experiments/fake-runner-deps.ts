/**
 * Small in-memory RunnerDeps for runner tests: a dataset of N synthesis items and a workflow
 * whose output echoes the item; items listed in `failOn` fail (until `healed` is set).
 */
import type { RunnerDeps, RunnerItem } from "../../experiments/runner.ts";

export interface FakeDepsState {
  calls: string[];
  failOn: Set<string>;
  delayMs: number;
}

export function fakeItems(n: number): RunnerItem[] {
  return Array.from({ length: n }, (_, i) => ({ id: `q${i + 1}`, question: `Question ${i + 1}`, referenceConclusion: `Answer ${i + 1}`, meta: { specialty: i % 2 ? "cardiology" : "oncology" } }));
}

export function fakeDeps(n: number, state: FakeDepsState): RunnerDeps {
  return {
    async loadItems(sel) {
      if (sel.name !== "fake") throw new Error(`unknown dataset "${sel.name}"; valid: fake`);
      return { dataset: "fake", taskKind: "synthesis", items: fakeItems(n), warnings: [] };
    },
    workflowKind(id) {
      if (id !== "echo") throw new Error(`unknown workflow "${id}"; valid: echo`);
      return "synthesis";
    },
    async createWorkflow(model, id, params) {
      return {
        id,
        async run(task: any, { repeat }) {
          state.calls.push(`${task.id}/${model.id}/${JSON.stringify(params)}/${repeat}`);
          if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
          if (state.failOn.has(task.id)) return { status: "failed", output: null, error: "endpoint down", intermediate: {}, calls: [], latencyMs: 1 };
          return {
            status: "ok",
            output: `Answer ${task.id.slice(1)} k=${params.k ?? "-"}`,
            intermediate: { k: params.k },
            calls: [{ modelId: model.id, cached: false, latencyMs: 5, usage: { inputTokens: 10, outputTokens: 3 }, attempts: 1 }],
            latencyMs: 5,
          };
        },
      };
    },
    async computeMetrics(record) {
      return { metrics: { exact: record.output === record.reference ? 1 : 0 }, notes: {} };
    },
  };
}
