/**
 * BM25 through `wink-bm25-text-search` 3.1.2 (BM25F with field weights), behind {@link Bm25Engine}.
 *
 * Lifecycle handled here (STACK.md): `defineConfig` → `definePrepTasks([analyzer])` → `addDoc`… →
 * `consolidate(9)` once → `search`. Term impacts are consolidated at 9 decimals (wink's maximum
 * precision; the default 4 would round every term's contribution to 1e-4), so scores agree with
 * {@link ./fast-engine.ts} to ~1e-9. wink's IDF with its `k` = 1 is Lucene's
 * `ln(1 + (N − df + 0.5)/(df + 0.5))`; the full formula is in {@link ./params.ts}.
 *
 * Limits: wink refuses to consolidate fewer than {@link WINK_MIN_DOCS} = 3 documents (we throw a
 * clear error first; use the fast engine for tiny corpora). Queries cost O(matching docs · log) as
 * wink sorts every match (~15 ms at 20k docs). Persist with {@link WinkBm25.exportJSON} and reload
 * with {@link loadWinkBm25}, which re-attaches the same analyzer as prep task (wink's export does
 * not keep prep tasks).
 */
import { createRequire } from "node:module";
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { Bm25ParamsSchema, type Bm25Engine, type Bm25Info, type Bm25Params } from "./params.ts";
import { assertUniqueIds } from "./params-core.ts";

const require = createRequire(import.meta.url);

interface WinkBm25Api {
  defineConfig(cfg: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
  definePrepTasks(tasks: ((x: unknown) => unknown)[], field?: string): number;
  addDoc(doc: Record<string, string>, id: string): number;
  consolidate(fp?: number): boolean;
  search(text: string, limit?: number): [string, number][];
  exportJSON(): string;
  importJSON(json: string): boolean;
  getTotalDocs(): number;
  getTotalCorpusLength(): number;
  getTokens(): Record<string, number>;
}
const winkBm25 = require("wink-bm25-text-search") as () => WinkBm25Api;

/** Retriever id of the wink engine. */
export const WINK_BM25_ID = "bm25-wink";
/** wink-bm25-text-search cannot consolidate a collection smaller than this. */
export const WINK_MIN_DOCS = 3;
/** Decimal places wink keeps per term impact (its maximum). */
export const WINK_FREQ_PRECISION = 9;

/** Wrapper around a consolidated wink BM25 model. */
export class WinkBm25 implements Bm25Engine {
  readonly id = WINK_BM25_ID;
  readonly info: Bm25Info;
  private docs: Map<string, CorpusDoc> | null = null;

  /** @internal use {@link buildWinkBm25} or {@link loadWinkBm25}. */
  constructor(
    private readonly model: WinkBm25Api,
    params: Bm25Params,
    analyzerId: string,
    contentHash: string | null,
  ) {
    const n = model.getTotalDocs();
    this.info = {
      engine: "wink",
      docCount: n,
      vocabSize: Object.keys(model.getTokens()).length,
      avgDocLength: n > 0 ? model.getTotalCorpusLength() / n : 0,
      params,
      analyzerId,
      contentHash,
    };
  }

  /** {@inheritDoc Bm25Engine.attachDocs} */
  attachDocs(docs: readonly CorpusDoc[]): void {
    this.docs = new Map(docs.map((d) => [d.id, d]));
  }

  /**
   * Same as `search` but synchronous; hits carry `scores.bm25` and, when the docs are attached,
   * `doc`. Empty/blank query or k ≤ 0 → []. wink orders equal scores by its own result table order.
   */
  searchSync(query: string, k: number): SearchHit[] {
    if (!(k >= 1) || typeof query !== "string" || query.trim() === "") return [];
    const rows = this.model.search(query, Math.floor(k));
    return rows.map(([id, score], i) => {
      const hit: SearchHit = { id: String(id), score, rank: i + 1, scores: { bm25: score } };
      const doc = this.docs?.get(String(id));
      if (doc) hit.doc = doc;
      return hit;
    });
  }

  /** {@inheritDoc Retriever.search} */
  async search(query: string, k: number): Promise<SearchHit[]> {
    return this.searchSync(query, k);
  }

  /**
   * The model as JSON: `{format, params, analyzerId, contentHash, wink}` where `wink` is wink's own
   * `exportJSON()` string. Reload with {@link loadWinkBm25}.
   */
  exportJSON(): string {
    return JSON.stringify({
      format: "medsynth-bm25-wink-v1",
      params: this.info.params,
      analyzerId: this.info.analyzerId,
      contentHash: this.info.contentHash,
      wink: this.model.exportJSON(),
    });
  }
}

function prepTask(analyzer: Analyzer): (x: unknown) => unknown {
  return (x: unknown) => analyzer.analyze(typeof x === "string" ? x : String(x ?? ""));
}

/**
 * Builds and consolidates a wink BM25 model over `docs` (fields `title`, `text`).
 * @param docs ≥ {@link WINK_MIN_DOCS} documents with unique ids.
 * @param params partial {@link Bm25Params} (k1 → wink `k1`, b → `b`, fieldWeights → `fldWeights`; wink `k` fixed at 1).
 * @param opts analyzer (default {@link defaultAnalyzer}) and content hash to record.
 * @throws Error when fewer than 3 docs are given (wink cannot consolidate; use engine "fast"), on a
 *   duplicate id, or a doc whose title/text is not a string.
 */
export function buildWinkBm25(docs: readonly CorpusDoc[], params: Partial<Bm25Params> = {}, opts: { analyzer?: Analyzer; contentHash?: string | null } = {}): WinkBm25 {
  const p = Bm25ParamsSchema.parse(params);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  if (docs.length < WINK_MIN_DOCS) {
    throw new Error(`buildWinkBm25: wink-bm25-text-search needs at least ${WINK_MIN_DOCS} documents to consolidate, got ${docs.length}; use the "fast" engine for tiny corpora`);
  }
  assertUniqueIds(docs, "buildWinkBm25");
  const model = winkBm25();
  model.defineConfig({ fldWeights: { title: p.fieldWeights.title, text: p.fieldWeights.text }, bm25Params: { k1: p.k1, b: p.b, k: 1 } });
  model.definePrepTasks([prepTask(analyzer)]);
  docs.forEach((d, i) => {
    if (typeof d.title !== "string" || typeof d.text !== "string") {
      throw new Error(`buildWinkBm25: doc ${JSON.stringify(d.id)} (#${i}) needs string fields "title" and "text"`);
    }
    model.addDoc({ title: d.title, text: d.text }, d.id);
  });
  model.consolidate(WINK_FREQ_PRECISION);
  const engine = new WinkBm25(model, p, analyzer.id, opts.contentHash ?? null);
  engine.attachDocs(docs);
  return engine;
}

/**
 * Reloads a model written by {@link WinkBm25.exportJSON}, re-attaching `analyzer` as wink prep task.
 * @param json the exported string.
 * @param opts analyzer (its id must equal the recorded one) and a `source` name for errors.
 * @throws Error naming `source` when the JSON is not a medsynth wink export or the analyzer differs.
 */
export function loadWinkBm25(json: string, opts: { analyzer?: Analyzer; source?: string } = {}): WinkBm25 {
  const where = opts.source ?? "json";
  let wrapped: { format?: string; params?: unknown; analyzerId?: string; contentHash?: string | null; wink?: string };
  try {
    wrapped = JSON.parse(json);
  } catch (e) {
    throw new Error(`loadWinkBm25: ${where} is not JSON: ${(e as Error).message}`);
  }
  if (wrapped.format !== "medsynth-bm25-wink-v1" || typeof wrapped.wink !== "string") {
    throw new Error(`loadWinkBm25: ${where} is not a medsynth wink BM25 export (format ${JSON.stringify(wrapped.format)})`);
  }
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  if (wrapped.analyzerId !== analyzer.id) {
    throw new Error(`loadWinkBm25: ${where} was built with analyzer ${wrapped.analyzerId} but ${analyzer.id} was given; rebuild the index`);
  }
  const model = winkBm25();
  model.importJSON(wrapped.wink);
  // wink's export drops prep tasks: re-attach the same analyzer, or search would throw.
  model.definePrepTasks([prepTask(analyzer)]);
  return new WinkBm25(model, Bm25ParamsSchema.parse(wrapped.params), analyzer.id, wrapped.contentHash ?? null);
}
