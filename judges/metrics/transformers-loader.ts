/**
 * Loading local @xenova/transformers models for model-backed metrics (BERTScore, perplexity).
 * Remote downloads are off unless `allowRemote` is set; a model that is not available locally
 * yields a reason string instead of a model, so metrics can report null with that reason.
 */
import { join } from "node:path";
import { cacheDir } from "../../corpus/paths.ts";

/** Where and how to look for a model. */
export interface LocalModelOptions {
  /** Hugging Face style model id, e.g. "Xenova/gpt2". */
  model: string;
  /** Folder holding `<model>/` with config, tokenizer and onnx files; default `<cacheDir>/models`. */
  modelDir?: string;
  /** Allow downloading from the Hub (default false: this workbench runs offline). */
  allowRemote?: boolean;
  /** Use the quantized ONNX weights (default false). */
  quantized?: boolean;
}

/** A loaded model or the reason it could not be loaded. */
export type Loaded<T> = { ok: true; value: T } | { ok: false; reason: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TransformersModule = any;

/**
 * Load a tokenizer and model class through @xenova/transformers.
 * @param kind "AutoModel" (encoder states) or "AutoModelForCausalLM" (logits).
 * @returns `{ok:false, reason}` when the model is not available locally (never throws for that).
 */
export async function loadLocalModel(options: LocalModelOptions, kind: "AutoModel" | "AutoModelForCausalLM"): Promise<Loaded<{ tokenizer: TransformersModule; model: TransformersModule }>> {
  let tf: TransformersModule;
  try {
    tf = await import("@xenova/transformers");
  } catch (e) {
    return { ok: false, reason: `@xenova/transformers could not be loaded (an optional peer dependency of medsynth: npm install @xenova/transformers@2.17.2): ${(e as Error).message}` };
  }
  const modelDir = options.modelDir ?? join(cacheDir(), "models");
  tf.env.allowRemoteModels = options.allowRemote === true;
  tf.env.allowLocalModels = true;
  tf.env.localModelPath = modelDir;
  try {
    const tokenizer = await tf.AutoTokenizer.from_pretrained(options.model);
    const model = await tf[kind].from_pretrained(options.model, { quantized: options.quantized ?? false });
    return { ok: true, value: { tokenizer, model } };
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0];
    return { ok: false, reason: `model ${options.model} not available (looked in ${modelDir}${options.allowRemote ? " and the Hub" : "; remote downloads disabled"}): ${msg}` };
  }
}
