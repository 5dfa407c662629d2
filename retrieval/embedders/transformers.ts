/**
 * Sentence embedder on `@xenova/transformers` (ONNX, in-process): feature extraction with mean or
 * CLS pooling and L2 normalisation, for any model id with ONNX weights — BGE
 * (`Xenova/bge-small-en-v1.5`, CLS), `Xenova/all-mpnet-base-v2` (mean), MedCPT exports, …
 *
 * Offline by default: models are read from a local directory (`modelDir`, default
 * `$MEDSYNTH_MODEL_DIR` or `cacheDir()/models`, laid out as `<modelDir>/<model id>/…` like the
 * Hugging Face repo: `config.json`, `tokenizer.json`, `onnx/model_quantized.onnx`) with
 * `env.allowRemoteModels = false`; a missing model fails fast with an error naming the folder
 * looked in. `allowRemote: true` lets transformers.js download into its cache (needs network).
 *
 * Note: transformers.js keeps its settings in a process-wide `env`; they are set just before each
 * model load.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cacheDir } from "../../corpus/paths.ts";
import type { Embedder } from "../types.ts";

/** Embedder id prefix: `transformers:<model id>:<pooling>[:fp32]`. */
export const TRANSFORMERS_EMBEDDER_PREFIX = "transformers";

/** Config of the transformers.js embedder. */
export const TransformersEmbedderConfigSchema = z
  .object({
    /** Hugging Face model id (ONNX export), e.g. `Xenova/bge-small-en-v1.5`. */
    model: z.string().min(1),
    /** `mean` over tokens (sentence-transformers default) or `cls` (BGE). */
    pooling: z.enum(["mean", "cls"]).default("mean"),
    /** L2-normalise the pooled vectors. */
    normalize: z.boolean().default(true),
    /** Use the 8-bit quantized ONNX weights (`onnx/model_quantized.onnx`). */
    quantized: z.boolean().default(true),
    /** Texts per forward pass. */
    batchSize: z.number().int().positive().default(16),
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
  const tf = await import("@xenova/transformers");
  tf.env.localModelPath = modelDir.endsWith("/") ? modelDir : `${modelDir}/`;
  tf.env.allowLocalModels = true;
  tf.env.allowRemoteModels = allowRemote;
  tf.env.cacheDir = join(cacheDir(), "transformers-hub");
  return tf;
}

/**
 * Build the embedder; loads the model (fails fast offline when it is not in `modelDir`).
 * Dims are read from a probe embedding.
 * @throws Error naming the model id and the folder looked in when the model is missing locally,
 *   or wrapping the library's load error otherwise.
 */
export async function createTransformersEmbedder(config: TransformersEmbedderConfig): Promise<Embedder> {
  const cfg = TransformersEmbedderConfigSchema.parse(config);
  const modelDir = cfg.modelDir ?? defaultModelDir();
  const local = localModelPath(cfg.model, modelDir);
  if (!cfg.allowRemote && !existsSync(join(local, "config.json"))) {
    throw new Error(`transformers embedder: model ${cfg.model} not found locally (looked in ${local}); put the ONNX export there (config.json, tokenizer.json, onnx/) or set allowRemote: true while online`);
  }
  const tf = await configureTransformersEnv(modelDir, cfg.allowRemote);
  let extractor: any;
  try {
    extractor = await tf.pipeline("feature-extraction", cfg.model, { quantized: cfg.quantized });
  } catch (err) {
    throw new Error(`transformers embedder: could not load ${cfg.model} (looked in ${local}${cfg.allowRemote ? " and the hub" : ", offline"}): ${err instanceof Error ? err.message : String(err)}`);
  }
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let s = 0; s < texts.length; s += cfg.batchSize) {
      const batch = texts.slice(s, s + cfg.batchSize).map((t) => (t.trim() === "" ? " " : t));
      const t = await extractor(batch, { pooling: cfg.pooling, normalize: cfg.normalize });
      const [n, d] = t.dims as number[];
      const data = t.data as Float32Array;
      for (let i = 0; i < n; i++) out.push(Float32Array.from(data.subarray(i * d, (i + 1) * d)));
    }
    return out;
  };
  const [probe] = await run(["probe"]);
  return {
    id: `${TRANSFORMERS_EMBEDDER_PREFIX}:${cfg.model}:${cfg.pooling}${cfg.quantized ? "" : ":fp32"}${cfg.normalize ? "" : ":raw"}`,
    dims: probe.length,
    embed: run,
  };
}
