/**
 * Sentence embedder on `@xenova/transformers` (ONNX, in-process): token states of an encoder,
 * pooled (`mean` over real tokens, or `cls`) and optionally L2-normalised, for any model id with
 * ONNX weights — BGE (`Xenova/bge-small-en-v1.5`: CLS, normalised, a query instruction prefix),
 * sentence-transformers exports (`Xenova/all-MiniLM-L6-v2`: mean), MedCPT (separate query and
 * article encoders: `queryModel` + `model`), …
 *
 * Texts are encoded by `models/transformers-encode.ts` (special tokens kept when a long text is
 * truncated to `maxLength`; the count of truncated texts is kept in `stats.truncated`) and pooled
 * ignoring padding, so batch size never changes a vector. Parity with PyTorch on a tiny BERT is a
 * test (tests/fixtures/models/, scripts/make-tiny-models.py).
 *
 * Offline by default: models are read from a local directory (`modelDir`, default
 * `$MEDSYNTH_MODEL_DIR` or `cacheDir()/models`, laid out as `<modelDir>/<model id>/…` like the
 * Hugging Face repo: `config.json`, `tokenizer.json`, `onnx/model.onnx` or
 * `onnx/model_quantized.onnx`) with `env.allowRemoteModels = false`; a missing model fails fast
 * with an error naming the folder looked in. `allowRemote: true` lets transformers.js download.
 *
 * Note: transformers.js keeps its settings in a process-wide `env`; they are set just before each
 * model load.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cacheDir } from "../../corpus/paths.ts";
import { effectiveMaxLength, encodeText, padBatch, poolStates } from "../../models/transformers-encode.ts";
import type { Embedder } from "../types.ts";

/** Embedder id prefix: `transformers:<model id>:<pooling>[:fp32]`. */
export const TRANSFORMERS_EMBEDDER_PREFIX = "transformers";

/** BGE v1.5 English query instruction (prepended to queries only, never to documents). */
export const BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: ";

/**
 * Settings the published models need (applied when an id matches; explicit config wins):
 * BGE v1.5 English models pool the CLS token, L2-normalise and prefix queries with
 * {@link BGE_QUERY_INSTRUCTION}; MedCPT pools CLS, compares by raw inner product (no
 * normalisation) and encodes queries with its own query encoder.
 */
export function modelPreset(model: string): Partial<TransformersEmbedderConfig> {
  if (/bge-(small|base|large)-en-v1\.5/i.test(model)) return { pooling: "cls", normalize: true, queryPrefix: BGE_QUERY_INSTRUCTION };
  if (/MedCPT-Article-Encoder/i.test(model)) return { pooling: "cls", normalize: false, queryModel: model.replace(/MedCPT-Article-Encoder/i, "MedCPT-Query-Encoder"), maxLength: 512 };
  return {};
}

/** Config of the transformers.js embedder. */
export const TransformersEmbedderConfigSchema = z
  .object({
    /** Hugging Face model id (ONNX export) of the document (article) encoder, e.g. `Xenova/bge-small-en-v1.5`. */
    model: z.string().min(1),
    /** A separate query encoder (MedCPT: `ncbi/MedCPT-Query-Encoder` next to `ncbi/MedCPT-Article-Encoder`). */
    queryModel: z.string().min(1).optional(),
    /** Text put before every query (BGE: {@link BGE_QUERY_INSTRUCTION}); documents never get it. */
    queryPrefix: z.string().default(""),
    /** `mean` over real tokens (sentence-transformers default) or `cls` (BGE, MedCPT). */
    pooling: z.enum(["mean", "cls"]).default("mean"),
    /** L2-normalise the pooled vectors. */
    normalize: z.boolean().default(true),
    /** Use the 8-bit quantized ONNX weights (`onnx/model_quantized.onnx`). */
    quantized: z.boolean().default(true),
    /** Texts per forward pass (does not change the vectors). */
    batchSize: z.number().int().positive().default(16),
    /** Max tokens per text, special tokens included (capped at the model's own limit); longer texts are truncated (and counted). */
    maxLength: z.number().int().min(3).default(512),
    /** Model revision recorded with the vectors (a local export has no hub revision: "local"). */
    revision: z.string().default("local"),
    /** Local model directory (default `$MEDSYNTH_MODEL_DIR` or `cacheDir()/models`). */
    modelDir: z.string().optional(),
    /** Allow downloads from the Hugging Face hub (off: offline, local files only). */
    allowRemote: z.boolean().default(false),
  })
  .strict();
/** What a caller may pass for {@link TransformersEmbedderConfigSchema} (keys with defaults are optional). */
export type TransformersEmbedderConfig = z.input<typeof TransformersEmbedderConfigSchema>;

/** Local model folder used when none is configured. */
export function defaultModelDir(): string {
  return process.env.MEDSYNTH_MODEL_DIR ?? join(cacheDir(), "models");
}

/** Where a model would be looked up locally. */
export function localModelPath(model: string, modelDir: string = defaultModelDir()): string {
  return join(modelDir, model);
}

/** Set transformers.js' process-wide env for a load from `modelDir`. */
export async function configureTransformersEnv(modelDir: string, allowRemote: boolean) {
  let tf: typeof import("@xenova/transformers");
  try {
    tf = await import("@xenova/transformers");
  } catch (err) {
    throw new Error(`@xenova/transformers could not be loaded (an optional peer dependency of medsynth: npm install @xenova/transformers@2.17.2): ${err instanceof Error ? err.message : String(err)}`);
  }
  tf.env.localModelPath = modelDir.endsWith("/") ? modelDir : `${modelDir}/`;
  tf.env.allowLocalModels = true;
  tf.env.allowRemoteModels = allowRemote;
  tf.env.cacheDir = join(cacheDir(), "transformers-hub");
  return tf;
}

/** What a transformers embedder records about itself (env.json, LanceDB table metadata). */
export type TransformersEmbedderInfo = {
  model: string;
  queryModel?: string;
  revision: string;
  pooling: "mean" | "cls";
  normalize: boolean;
  quantized: boolean;
  queryPrefix: string;
  maxLength: number;
};

/** A transformers.js embedder: an {@link Embedder} with its settings and a truncation count. */
export interface TransformersEmbedder extends Embedder {
  readonly info: TransformersEmbedderInfo;
  /** Texts cut to `maxLength` so far (documents and queries). */
  readonly stats: { truncated: number };
  embedQueries(texts: string[]): Promise<Float32Array[]>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function loadEncoder(tf: any, model: string, modelDir: string, cfg: z.output<typeof TransformersEmbedderConfigSchema>) {
  const local = localModelPath(model, modelDir);
  if (!cfg.allowRemote && !existsSync(join(local, "config.json"))) {
    throw new Error(
      `transformers embedder: model ${model} not found locally (looked in ${local}); put the ONNX export there (config.json, tokenizer.json, onnx/) or set allowRemote: true while online`,
    );
  }
  try {
    const tokenizer = await tf.AutoTokenizer.from_pretrained(model);
    const encoder = await tf.AutoModel.from_pretrained(model, { quantized: cfg.quantized });
    return { tokenizer, encoder };
  } catch (err) {
    throw new Error(`transformers embedder: could not load ${model} (looked in ${local}${cfg.allowRemote ? " and the hub" : ", offline"}): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Build the embedder; loads the model(s) (fails fast offline when one is not in `modelDir`).
 * Dims are read from a probe embedding.
 * @throws Error naming the model id and the folder looked in when a model is missing locally,
 *   or wrapping the library's load error otherwise.
 */
export async function createTransformersEmbedder(config: TransformersEmbedderConfig): Promise<TransformersEmbedder> {
  const cfg = TransformersEmbedderConfigSchema.parse(config);
  const modelDir = cfg.modelDir ?? defaultModelDir();
  const tf = await configureTransformersEnv(modelDir, cfg.allowRemote);
  const doc = await loadEncoder(tf, cfg.model, modelDir, cfg);
  const query = cfg.queryModel ? await loadEncoder(tf, cfg.queryModel, modelDir, cfg) : doc;
  const stats = { truncated: 0 };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const run = async (m: { tokenizer: any; encoder: any }, texts: string[]): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let s = 0; s < texts.length; s += cfg.batchSize) {
      const maxLength = effectiveMaxLength(m.tokenizer, m.encoder, cfg.maxLength);
      const rows = texts.slice(s, s + cfg.batchSize).map((t) => encodeText(m.tokenizer, t, maxLength));
      const batch = padBatch(tf, m.tokenizer, rows);
      stats.truncated += batch.truncated;
      const result = await m.encoder(batch.inputs);
      const states = result.last_hidden_state ?? result.token_embeddings ?? result.logits;
      out.push(...poolStates(states.data as Float32Array, states.dims as number[], batch.lengths, cfg.pooling, cfg.normalize));
    }
    return out;
  };
  const [probe] = await run(doc, ["probe"]);
  stats.truncated = 0;
  const info: TransformersEmbedderInfo = {
    model: cfg.model,
    ...(cfg.queryModel ? { queryModel: cfg.queryModel } : {}),
    revision: cfg.revision,
    pooling: cfg.pooling,
    normalize: cfg.normalize,
    quantized: cfg.quantized,
    queryPrefix: cfg.queryPrefix,
    maxLength: cfg.maxLength,
  };
  const variant = `${cfg.quantized ? "" : ":fp32"}${cfg.normalize ? "" : ":raw"}`;
  return {
    id: `${TRANSFORMERS_EMBEDDER_PREFIX}:${cfg.model}${cfg.queryModel ? `+${cfg.queryModel}` : ""}:${cfg.pooling}${variant}`,
    dims: probe.length,
    info,
    stats,
    embed: (texts) => run(doc, texts),
    embedQueries: (texts) =>
      run(
        query,
        texts.map((t) => cfg.queryPrefix + t),
      ),
  };
}
