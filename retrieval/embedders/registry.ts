/**
 * Embedder registry: maps an embedder id to its factory.
 *
 * | id | embedder |
 * |---|---|
 * | `word-vectors` (alias of `word-vectors:sg-100d-mean`) | mean-pooled wink 100-d word vectors (offline default) |
 * | `word-vectors:sg-100d-mean` / `-sif` / `-sif-corpus-pc1` | mean / SIF (Zipf-from-rank p(w)) / full SIF (p(w) counted on `docs`, first principal component removed; on fewer than 50 docs it falls back to `-sif` and its id says so) |
 * | `transformers:<model id>[:mean\|:cls]` | @xenova/transformers encoder, pooled (local model dir, offline); BGE v1.5 and MedCPT get their published settings (`modelPreset`) |
 * | `openai:<model>` | OpenAI-compatible /v1/embeddings |
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { createEmbeddingClient } from "../../models/registry.ts";
import type { EmbeddingClient } from "../../models/types.ts";
import type { Embedder } from "../types.ts";
import { createOpenAIEmbedder, OPENAI_EMBEDDER_PREFIX } from "./openai.ts";
import { createTransformersEmbedder, modelPreset, TRANSFORMERS_EMBEDDER_PREFIX } from "./transformers.ts";
import { createWordVectorsEmbedder, WORD_VECTORS_ID_PREFIX } from "./word-vectors.ts";

/** The plain offline embedder id (alias of `word-vectors:sg-100d-mean`; needs no corpus). */
export const DEFAULT_EMBEDDER_ID = "word-vectors";

/**
 * Default embedder of retrievers (they always have the corpus): full SIF on the word vectors,
 * best offline variant measured on the 284 MedEvidence questions over the 3,340-doc bundled
 * corpus (dense recall@10: mean 0.293, SIF vocab-rank 0.385, SIF corpus 0.438, SIF corpus + PC
 * removal 0.479). On a corpus under 50 docs the built embedder is vocab-rank SIF
 * (`word-vectors:sg-100d-sif`): corpus statistics from so few docs hurt (see word-vectors.ts).
 */
export const DEFAULT_RETRIEVER_EMBEDDER_ID = "word-vectors:sg-100d-sif-corpus-pc1";

/** Options passed to embedder factories (each uses what it needs). */
export interface EmbedderOptions {
  /**
   * Corpus docs (needed by `word-vectors:sg-100d-sif-corpus-pc1` to count word frequencies and fit
   * the common component; with fewer than 50 docs that embedder falls back to vocab-rank SIF
   * without removal and its id becomes `word-vectors:sg-100d-sif`).
   */
  docs?: readonly CorpusDoc[];
  /**
   * The corpus docs read on demand instead of `docs`: called only when the fitted corpus state of
   * `corpusHash` (which must then identify these docs) is not cached yet.
   */
  loadFitDocs?: () => Promise<readonly CorpusDoc[]>;
  /**
   * `corpusContentHash(docs)` when the caller has it: keys the fitted corpus state instead of
   * hashing every text again (the retriever registry passes it).
   */
  corpusHash?: string;
  /** Info lines of embedder factories (e.g. the small-corpus SIF fallback); default console.error. */
  log?: (line: string) => void;
  /** Word-vector binary cache folder (default `cacheDir()/word-vectors`). */
  wordVectorCacheDir?: string;
  /** transformers.js: local model folder, downloads allowed, quantized weights, batch size. */
  modelDir?: string;
  allowRemote?: boolean;
  quantized?: boolean;
  batchSize?: number;
  /** OpenAI-compatible endpoint: base URL, API-key env var name, output dims, or a call-layer client. */
  baseURL?: string;
  apiKeyEnv?: string;
  dimensions?: number;
  /** Use the models/ disk call cache for embedding requests (default true). */
  cache?: boolean;
  /** A ready call-layer client (default: `createEmbeddingClient("openai:<model>", …)` from models/). */
  client?: EmbeddingClient;
}

type Factory = (rest: string, opts: EmbedderOptions) => Promise<Embedder>;

/** Model, pooling and the model's published settings for a `transformers:<model>[:mean|:cls]` id rest. */
function transformersSettings(rest: string) {
  const m = /^(.+?)(?::(mean|cls))?$/.exec(rest);
  if (!m || !m[1]) throw new Error(`embedder id "transformers:${rest}": expected transformers:<model id>[:mean|:cls]`);
  const preset = modelPreset(m[1]);
  return { ...preset, model: m[1], pooling: (m[2] as "mean" | "cls" | undefined) ?? preset.pooling ?? "mean" };
}

/** The text a fit document contributes to the embedder's corpus statistics. */
const fitText = (d: CorpusDoc): string => `${d.title}\n${d.text}`;

const exact: Record<string, Factory> = {
  [DEFAULT_EMBEDDER_ID]: (_r, o) => createWordVectorsEmbedder({ pooling: "mean", cacheDir: o.wordVectorCacheDir }),
  [`${WORD_VECTORS_ID_PREFIX}-mean`]: (_r, o) => createWordVectorsEmbedder({ pooling: "mean", cacheDir: o.wordVectorCacheDir }),
  [`${WORD_VECTORS_ID_PREFIX}-sif`]: (_r, o) => createWordVectorsEmbedder({ pooling: "sif", frequencies: "vocab-rank", cacheDir: o.wordVectorCacheDir }),
  [`${WORD_VECTORS_ID_PREFIX}-sif-corpus-pc1`]: (_r, o) =>
    createWordVectorsEmbedder(
      { pooling: "sif", frequencies: "corpus", removeComponents: 1, cacheDir: o.wordVectorCacheDir },
      {
        fitTexts: o.docs?.map(fitText),
        loadFitTexts: o.loadFitDocs && (async () => (await o.loadFitDocs!()).map(fitText)),
        fitTextsKey: o.corpusHash,
        log: o.log,
      },
    ),
};

const prefixed: Record<string, Factory> = {
  [TRANSFORMERS_EMBEDDER_PREFIX]: (rest, o) =>
    createTransformersEmbedder({ ...transformersSettings(rest), modelDir: o.modelDir, allowRemote: o.allowRemote, quantized: o.quantized, batchSize: o.batchSize }),
  [OPENAI_EMBEDDER_PREFIX]: (rest, o) => {
    const m = /^(.+?)(?:@(\d+))?$/.exec(rest);
    const dimensions = o.dimensions ?? (m?.[2] ? Number(m[2]) : undefined);
    const model = m?.[1] ?? rest;
    // Through the models/ call layer (disk cache, retries, rate limits) unless a client is given.
    const client = o.client ?? createEmbeddingClient(`openai:${model}`, { baseURL: o.baseURL, apiKeyEnv: o.apiKeyEnv, dimensions, batchSize: o.batchSize, cache: o.cache });
    return createOpenAIEmbedder({ model, dimensions }, { client });
  },
};

/** Valid embedder ids / id patterns, for help texts and error messages. */
export const EMBEDDER_IDS: readonly string[] = [...Object.keys(exact), "transformers:<model id>[:mean|:cls]", "openai:<model>[@<dims>]"];

/**
 * Build an embedder by id.
 * @param id one of {@link EMBEDDER_IDS}.
 * @param opts factory options (see {@link EmbedderOptions}).
 * @returns the embedder (its `id` is canonical, e.g. `word-vectors` → `word-vectors:sg-100d-mean`).
 * @throws Error listing the valid ids on an unknown id; factory errors (missing model, missing docs).
 */
export async function createEmbedder(id: string, opts: EmbedderOptions = {}): Promise<Embedder> {
  const f = exact[id];
  if (f) return f("", opts);
  const i = id.indexOf(":");
  if (i > 0) {
    const p = prefixed[id.slice(0, i)];
    if (p && id.length > i + 1) return p(id.slice(i + 1), opts);
  }
  throw new Error(`unknown embedder id ${JSON.stringify(id)}; valid ids: ${EMBEDDER_IDS.join(", ")}`);
}

/**
 * What an embedder id stands for, without loading anything (for env.json): for transformers ids
 * the model(s), pooling, normalisation and query prefix it will use; otherwise just the id.
 * @throws Error on a malformed transformers id.
 */
export function describeEmbedder(id: string): Record<string, unknown> {
  if (!id.startsWith(`${TRANSFORMERS_EMBEDDER_PREFIX}:`)) return { id };
  const s = transformersSettings(id.slice(TRANSFORMERS_EMBEDDER_PREFIX.length + 1));
  return {
    id,
    model: s.model,
    ...(s.queryModel ? { queryModel: s.queryModel } : {}),
    revision: s.revision ?? "local",
    pooling: s.pooling,
    normalize: s.normalize ?? true,
    queryPrefix: s.queryPrefix ?? "",
  };
}
