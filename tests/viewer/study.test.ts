/** Rating studies: sampling, Latin-square order, blinding, calibration, store, rater routes, refusal of changed runs. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allocate, checkStudyRun, createStudy, latinRow, readStudy } from "../../viewer/study/study.ts";
import { RatingStore } from "../../viewer/study/store.ts";
import { exportRatings, raterTasks, submitRating } from "../../viewer/study/rater-service.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { annotateCreateCommand } from "../../experiments/cli/viewer-commands.ts";
import { changeCell, CONFIGS, ITEMS, makeStudyRun } from "./study-fixtures.ts";

const configLabels = CONFIGS.map((c) => `model-x | ${c.workflow}${"k" in c.params ? ` | k=${c.params.k}` : ""}`);
const tmp = () => join(mkdtempSync(join(tmpdir(), "medsynth-study-")), "s");

describe("allocate (largest remainder)", () => {
  it("splits draws proportionally", () => {
    expect(allocate({ a: 4, b: 2 }, 3)).toEqual({ a: 2, b: 1 });
    // exact 2, 1.2, 0.8 → floors 2, 1, 0; the largest remainder (c, .8) gets the last draw
    expect(allocate({ a: 5, b: 3, c: 2 }, 4)).toEqual({ a: 2, b: 1, c: 1 });
    expect(allocate({ a: 1, b: 1 }, 5)).toEqual({ a: 1, b: 1 });
  });
  it("latinRow is the cyclic square", () => {
    expect([0, 1, 2].map((r) => latinRow(r, 0, 3))).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
    expect(latinRow(1, 1, 3)).toEqual([2, 0, 1]);
  });
});

describe("createStudy", () => {
  it("samples items stratified by dataset and takes every configuration of each", () => {
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 3, seed: 7, out: tmp() });
    const items = [...new Set(study.tasks.map((t) => t.itemId))];
    expect(items).toHaveLength(3);
    expect(items.filter((i) => i.startsWith("a"))).toHaveLength(2);
    expect(items.filter((i) => i.startsWith("b"))).toHaveLength(1);
    expect(study.tasks).toHaveLength(9);
    expect(study.configs).toEqual(configLabels);
    expect(study.rubrics.map((r) => r.id)).toEqual(["medmeta-semantic-equivalence"]);
  });

  it("orders each rater's items at random and balances configurations over slots by a Latin square", () => {
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 3, items: 6, seed: 1, out: tmp() });
    const tasks = new Map(study.tasks.map((t) => [t.id, t]));
    const itemOrders: string[][] = [];
    study.raters.forEach((rater, r) => {
      const seq = study.order[rater.id].map((x) => tasks.get(x.taskId)!);
      expect(seq).toHaveLength(18);
      const counts = new Map<string, number>();
      const items: string[] = [];
      for (let j = 0; j < 6; j++) {
        const block = seq.slice(3 * j, 3 * j + 3);
        expect(new Set(block.map((t) => t.itemId)).size).toBe(1); // one item per block
        items.push(block[0].itemId);
        block.forEach((t, p) => {
          expect(t.configs[0]).toBe(study.configs[(r + j + p) % 3]);
          counts.set(`${t.configs[0]}@${p}`, (counts.get(`${t.configs[0]}@${p}`) ?? 0) + 1);
        });
      }
      // every configuration in every slot 6 / 3 = 2 times
      expect([...counts.values()]).toEqual(Array(9).fill(2));
      expect([...items].sort()).toEqual(ITEMS.map(([id]) => id).sort());
      itemOrders.push(items);
    });
    expect(new Set(itemOrders.map((o) => o.join())).size).toBeGreaterThan(1);
    // same seed → same orders (tokens differ)
    const again = createStudy(join(study.runDir), { rubric: "medmeta", raters: 3, items: 6, seed: 1, out: tmp() }).study;
    expect(again.order).toEqual(study.order);
    expect(again.raters[0].token).not.toBe(study.raters[0].token);
    expect(new Set(study.raters.map((r) => r.token)).size).toBe(3);
  });

  it("blinds the rater's payload: no model, workflow, parameters or cell keys", () => {
    const dir = tmp();
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 6, seed: 2, out: dir });
    const store = new RatingStore(dir);
    try {
      const payload = JSON.stringify(raterTasks(study, checkStudyRun(study), store, study.raters[0]));
      for (const word of ["model-x", "golden-rag", "standard-rag", "pzs", "k=5", ...Object.keys(study.fingerprints)]) expect(payload).not.toContain(word);
      expect(payload).toContain("Conclusion text number");
    } finally {
      store.close();
    }
  });

  it("pairwise: every pair of configurations per item, A/B position randomised per rater, stored as configured", () => {
    const dir = tmp();
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 2, seed: 3, mode: "pairwise", out: dir });
    expect(study.tasks).toHaveLength(2 * 3);
    expect(study.tasks.every((t) => t.kind === "pairwise" && t.keys.length === 2)).toBe(true);
    const refs = Object.values(study.order).flat();
    expect(refs.some((r) => r.swap)).toBe(true);
    expect(refs.some((r) => !r.swap)).toBe(true);
    const store = new RatingStore(dir);
    try {
      const rater = study.raters[0];
      const pos = study.order[rater.id].findIndex((r) => r.swap) + 1;
      const ref = study.order[rater.id][pos - 1];
      const task = study.tasks.find((t) => t.id === ref.taskId)!;
      const shown = raterTasks(study, checkStudyRun(study), store, rater)[pos - 1];
      // swapped: the first output shown is the task's second cell
      expect(shown.outputs[0].text).toBe(checkStudyRun(study).get(task.keys[1])!.output);
      expect(submitRating(study, store, rater, pos, { preference: "A", revision: 0 })).toMatchObject({ ok: true, rating: { preference: "b" } });
      expect(exportRatings(study, store)[0]).toMatchObject({ task: task.id, preference: "b", preferred: task.configs[1] });
      expect(raterTasks(study, checkStudyRun(study), store, rater)[pos - 1].rating?.preference).toBe("A");
    } finally {
      store.close();
    }
  });

  it("puts calibration cells first for every rater and reveals the reference rating only once rated", () => {
    const runDir = makeStudyRun();
    const cal = join(runDir, "calibration.json");
    writeFileSync(cal, JSON.stringify([{ key: "cell-a1-0", scores: { "medmeta-semantic-equivalence.semantic_equivalence": 4 } }]));
    const dir = tmp();
    const { study } = createStudy(runDir, { rubric: "medmeta", raters: 2, items: 6, seed: 1, calibration: cal, out: dir });
    for (const r of study.raters) expect(study.tasks.find((t) => t.id === study.order[r.id][0].taskId)).toMatchObject({ calibration: true, keys: ["cell-a1-0"] });
    expect(study.tasks.filter((t) => !t.calibration && t.keys[0] === "cell-a1-0")).toHaveLength(0);
    const store = new RatingStore(dir);
    try {
      const rater = study.raters[0];
      expect(raterTasks(study, checkStudyRun(study), store, rater)[0]).toMatchObject({ calibration: true, referenceScores: null });
      submitRating(study, store, rater, 1, { scores: { "medmeta-semantic-equivalence.semantic_equivalence": 2 }, revision: 0 });
      expect(raterTasks(study, checkStudyRun(study), store, rater)[0].referenceScores).toEqual({ "medmeta-semantic-equivalence.semantic_equivalence": 4 });
    } finally {
      store.close();
    }
    expect(() => createStudy(runDir, { rubric: "medmeta", raters: 1, items: 1, calibration: cal, out: dir })).toThrow("a study already exists here");
  });

  it("is refused, with the reason, when the run's cells changed since", async () => {
    const runDir = makeStudyRun();
    const dir = tmp();
    const { study } = createStudy(runDir, { rubric: "medmeta", raters: 2, items: 6, seed: 1, out: dir });
    expect(checkStudyRun(readStudy(dir)).size).toBe(18);
    changeCell(runDir, 2, 1);
    expect(() => checkStudyRun(study)).toThrow(/refused: 1 of its 18 cells changed .* cell cell-a3-1 \(a3\) changed: its status or output differs/);
    await expect(startViewerServer({ study: dir })).rejects.toThrow("refused");
  });

  it("leaves out items without the reference a reference-based rubric needs, and says how many", async () => {
    const runDir = makeStudyRun(["a2", "b1"]);
    const dir = tmp();
    const { study } = createStudy(runDir, { rubric: "medmeta", raters: 2, items: 6, seed: 1, out: dir });
    const items = [...new Set(study.tasks.map((t) => t.itemId))].sort();
    expect(items).toEqual(["a1", "a3", "a4", "b2"]);
    expect(study.requiredInputs).toEqual(["reference"]);
    expect(study.excluded).toEqual({ items: 2, cells: 6, itemIds: ["a2", "b1"] });
    const dir2 = tmp();
    const lines: string[] = [];
    await annotateCreateCommand(runDir, { rubric: "medmeta", raters: "1", items: "6", seed: "1", mode: "single", name: "s", out: dir2 }, (l) => lines.push(l));
    expect(lines[0]).toBe("left out 2 item(s) and 6 cell(s) without the reference text the rubric needs: a2, b1 (--missing-inputs refuse stops instead)");
    // the rater never sees "(no reference text)": every task carries its reference
    const store = new RatingStore(dir);
    const tasks = raterTasks(study, checkStudyRun(study), store, study.raters[0]);
    store.close();
    expect(tasks.every((t) => typeof t.reference === "string" && t.reference.startsWith("Reference conclusion of"))).toBe(true);
    expect(tasks.every((t) => t.source === null)).toBe(true);
  });

  it("refuses, naming the rubric's required fields, when asked to or when no item has them", () => {
    expect(() => createStudy(makeStudyRun(["a2"]), { rubric: "medmeta", raters: 1, items: 6, missingInputs: "refuse", out: tmp() })).toThrow(
      /1 of 6 items \(3 cells\) have no reference text \(a2\); rubric medmeta-semantic-equivalence needs reference\. Leave them out with --missing-inputs exclude/,
    );
    const all = ITEMS.map(([id]) => id);
    expect(() => createStudy(makeStudyRun(all), { rubric: "medmeta", raters: 1, items: 6, out: tmp() })).toThrow(
      /nothing to rate: 6 of 6 items \(18 cells\) have no reference text .*rubric medmeta-semantic-equivalence needs reference/,
    );
    // RWE rubrics need the source text: the synthetic cells have none
    expect(() => createStudy(makeStudyRun(), { rubric: "rwe", raters: 1, items: 6, out: tmp() })).toThrow(
      /rubric rwe-direction-of-effect needs source; rubric rwe-numbers-accurate needs source; rubric rwe-completeness needs source/,
    );
  });

  it("rejects unknown rubrics and empty samples by name", () => {
    expect(() => createStudy(makeStudyRun(), { rubric: "nope", raters: 1, items: 1, out: tmp() })).toThrow(/nope/);
    expect(() => createStudy(makeStudyRun(), { rubric: "medmeta", raters: 1, items: 1, workflows: ["pcot"], out: tmp() })).toThrow("no ok cells with a text output for workflows pcot");
  });
});

describe("RatingStore", () => {
  it("writes in WAL mode, refuses a stale revision (second tab) and keeps every accepted submit", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-"));
    const a = new RatingStore(dir);
    expect(a.journalMode()).toBe("wal");
    const v = { scores: { d: 3 }, preference: null, comment: "" };
    expect(a.submit("r1", "t1", v, 0)).toMatchObject({ ok: true, rating: { revision: 1 } });
    // a second tab that loaded before the first save still sends revision 0
    const b = new RatingStore(dir);
    const stale = b.submit("r1", "t1", { ...v, scores: { d: 5 } }, 0);
    expect(stale).toMatchObject({ ok: false, conflict: true, current: { revision: 1, scores: { d: 3 } } });
    expect(b.submit("r1", "t1", { ...v, scores: { d: 5 } }, 1)).toMatchObject({ ok: true, rating: { revision: 2, scores: { d: 5 } } });
    expect(a.all()).toHaveLength(1);
    expect(a.historyCount()).toBe(2);
    // a retry of the save that made revision 2 (its answer was lost): acknowledged, not a conflict, no new history row
    expect(b.submit("r1", "t1", { ...v, scores: { d: 5 } }, 1)).toMatchObject({ ok: true, rating: { revision: 2, scores: { d: 5 } } });
    expect(b.submit("r1", "t1", { ...v, scores: { d: 4 } }, 1)).toMatchObject({ ok: false, conflict: true });
    expect(a.historyCount()).toBe(2);
    b.close();
    // no close of `a`: a crash; a new process still reads what was acknowledged
    const c = new RatingStore(dir);
    expect(c.forRater("r1")[0]).toMatchObject({ scores: { d: 5 }, revision: 2 });
    c.close();
    a.close();
  });
});

describe("rating routes", () => {
  let srv: ViewerServer | null = null;
  afterEach(async () => {
    await srv?.close();
    srv = null;
  });

  it("403 for an unknown token, own tasks only, scale checks, conflicts as 409", async () => {
    const dir = tmp();
    const { study } = createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 2, seed: 1, out: dir });
    srv = await startViewerServer({ study: dir, port: 0 });
    const [r1, r2] = study.raters;
    const dim = "medmeta-semantic-equivalence.semantic_equivalence";
    const post = (token: string, n: number, body: unknown) =>
      fetch(`${srv!.url}/api/rate/${token}/${n}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    for (const path of ["/rate/not-a-token", "/api/rate/not-a-token", `/api/rate/${r1.token.slice(0, -1)}x`]) {
      const res = await fetch(srv.url + path);
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain("Conclusion");
    }
    expect((await post("not-a-token", 1, { scores: { [dim]: 3 } })).status).toBe(403);
    expect((await fetch(`${srv.url}/rate/${r1.token}`)).status).toBe(200);
    expect((await post(r1.token, 1, { scores: { [dim]: 7 }, revision: 0 })).status).toBe(400);
    expect((await post(r1.token, 1, { scores: { [dim]: 2.5 }, revision: 0 })).status).toBe(400);
    expect((await post(r1.token, 1, { scores: {}, revision: 0 })).status).toBe(400);
    expect((await post(r1.token, 99, { scores: { [dim]: 3 }, revision: 0 })).status).toBe(400);
    expect((await post(r1.token, 1, { scores: { [dim]: 3 }, comment: "<b>ok</b>", revision: 0 })).status).toBe(200);
    const again = await post(r1.token, 1, { scores: { [dim]: 4 }, revision: 0 });
    expect(again.status).toBe(409);
    const mine = (await (await fetch(`${srv.url}/api/rate/${r1.token}`)).json()) as { rater: string; tasks: { rating: { scores: Record<string, number>; comment: string } | null }[] };
    expect(mine.rater).toBe("rater1");
    expect(mine.tasks[0].rating).toMatchObject({ scores: { [dim]: 3 }, comment: "<b>ok</b>", revision: 1 });
    expect(mine.tasks.filter((t) => t.rating)).toHaveLength(1);
    const theirs = (await (await fetch(`${srv.url}/api/rate/${r2.token}`)).json()) as { rater: string; tasks: { rating: unknown }[] };
    expect(theirs.rater).toBe("rater2");
    expect(theirs.tasks.every((t) => t.rating === null)).toBe(true);
  });
});
