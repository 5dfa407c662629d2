/**
 * Encoding texts for transformers.js (`@xenova/transformers` 2.x) models the way Hugging Face
 * `tokenizers` does, with truncation that keeps the special tokens.
 *
 * Why not the tokenizer's own `truncation: true`: transformers.js 2.x truncates the *finished*
 * sequence (`[CLS] … [SEP]` cut at `max_length`), which drops the closing `[SEP]` of every long
 * text — the pooled vectors, cross-encoder logits and BERTScore of long texts then differ from
 * the PyTorch/HF reference. Here the content tokens are truncated first (single texts: from the
 * end; pairs: HF's `longest_first`, one token at a time from the longer side), then the model's
 * own special-token template (read off the tokenizer by probing it) is put around them.
 *
 * Every encoder-side model-backed part (embedder, cross-encoder reranker, BERTScore) encodes
 * through here, so they share one tested behaviour; each call reports how many texts were cut.
 */

/** A transformers.js tokenizer (untyped library object). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HfTokenizer = any;

/** One encoded sequence: ids, attention mask (all 1) and segment ids. */
export interface EncodedSequence {
  inputIds: number[];
  tokenTypeIds: number[];
  /** Whether content tokens were dropped to fit `maxLength`. */
  truncated: boolean;
}

/** The special-token template of a tokenizer, probed once. */
interface Template {
  single: { prefix: number[]; suffix: number[]; type: number };
  pair: { prefix: number[]; middle: number[]; suffix: number[]; typeA: number; typeB: number; typesPrefix: number[]; typesMiddle: number[]; typesSuffix: number[] };
}

const templates = new WeakMap<object, Template>();

function contentIds(tokenizer: HfTokenizer, text: string): number[] {
  return (tokenizer.encode(text, null, { add_special_tokens: false }) as number[]).map(Number);
}

function indexOfRun(haystack: readonly number[], needle: readonly number[], from = 0): number {
  outer: for (let i = from; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Read the tokenizer's special-token template by encoding probe texts with and without special
 * tokens. @throws Error when the probes cannot be located (an exotic post-processor).
 */
function templateOf(tokenizer: HfTokenizer): Template {
  const cached = templates.get(tokenizer);
  if (cached) return cached;
  const a = contentIds(tokenizer, "a");
  const b = contentIds(tokenizer, "b");
  const single = tokenizer._encode_plus("a", null, { add_special_tokens: true, return_token_type_ids: true });
  const sIds = (single.input_ids as number[]).map(Number);
  const sTypes: number[] = single.token_type_ids ? (single.token_type_ids as number[]).map(Number) : sIds.map(() => 0);
  const ia = indexOfRun(sIds, a);
  const pair = tokenizer._encode_plus("a", "b", { add_special_tokens: true, return_token_type_ids: true });
  const pIds = (pair.input_ids as number[]).map(Number);
  const pTypes: number[] = pair.token_type_ids ? (pair.token_type_ids as number[]).map(Number) : pIds.map(() => 0);
  const pa = indexOfRun(pIds, a);
  const pb = indexOfRun(pIds, b, pa + a.length);
  if (ia < 0 || pa < 0 || pb < 0) throw new Error("transformers encode: cannot read this tokenizer's special-token template (probe tokens not found)");
  const t: Template = {
    single: { prefix: sIds.slice(0, ia), suffix: sIds.slice(ia + a.length), type: sTypes[ia] ?? 0 },
    pair: {
      prefix: pIds.slice(0, pa),
      middle: pIds.slice(pa + a.length, pb),
      suffix: pIds.slice(pb + b.length),
      typeA: pTypes[pa] ?? 0,
      typeB: pTypes[pb] ?? 0,
      typesPrefix: pTypes.slice(0, pa),
      typesMiddle: pTypes.slice(pa + a.length, pb),
      typesSuffix: pTypes.slice(pb + b.length),
    },
  };
  templates.set(tokenizer, t);
  return t;
}

/**
 * Encode one text with special tokens, truncating its content (from the end) so the whole
 * sequence has at most `maxLength` tokens.
 * @param maxLength total tokens including special tokens; `Infinity` for no limit.
 */
export function encodeText(tokenizer: HfTokenizer, text: string, maxLength: number): EncodedSequence {
  const t = templateOf(tokenizer).single;
  let ids = contentIds(tokenizer, text);
  const budget = maxLength - t.prefix.length - t.suffix.length;
  const truncated = ids.length > budget;
  if (truncated) ids = ids.slice(0, Math.max(0, budget));
  const inputIds = [...t.prefix, ...ids, ...t.suffix];
  return { inputIds, tokenTypeIds: inputIds.map(() => t.type), truncated };
}

/**
 * Encode a text pair (query, document) with special tokens and segment ids, truncating with
 * HF's `longest_first` strategy so the whole sequence has at most `maxLength` tokens.
 */
export function encodePair(tokenizer: HfTokenizer, first: string, second: string, maxLength: number): EncodedSequence {
  const t = templateOf(tokenizer).pair;
  const a = contentIds(tokenizer, first);
  const b = contentIds(tokenizer, second);
  const budget = Math.max(0, maxLength - t.prefix.length - t.middle.length - t.suffix.length);
  const truncated = a.length + b.length > budget;
  while (a.length + b.length > budget) {
    if (a.length > b.length) a.pop();
    else b.pop();
  }
  return {
    inputIds: [...t.prefix, ...a, ...t.middle, ...b, ...t.suffix],
    tokenTypeIds: [...t.typesPrefix, ...a.map(() => t.typeA), ...t.typesMiddle, ...b.map(() => t.typeB), ...t.typesSuffix],
    truncated,
  };
}

/** Model inputs for a padded batch, as transformers.js Tensors, plus the count of cut texts. */
export interface EncodedBatch {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  inputs: { input_ids: any; attention_mask: any; token_type_ids: any };
  /** Per row: number of real (non-padding) tokens. */
  lengths: number[];
  /** Per row: the token ids (unpadded). */
  ids: number[][];
  /** Rows whose content was truncated. */
  truncated: number;
}

/**
 * Pad encoded sequences on the right with the tokenizer's pad id into int64 tensors
 * `[batch, maxLen]` (`input_ids`, `attention_mask` 1/0, `token_type_ids`).
 * @param tf the loaded `@xenova/transformers` module (for its Tensor class).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function padBatch(tf: any, tokenizer: HfTokenizer, rows: readonly EncodedSequence[]): EncodedBatch {
  const width = Math.max(1, ...rows.map((r) => r.inputIds.length));
  const pad = Number(tokenizer.pad_token_id ?? tokenizer.model?.tokens_to_ids?.get?.(tokenizer.pad_token) ?? 0);
  const n = rows.length;
  const ids = new BigInt64Array(n * width);
  const mask = new BigInt64Array(n * width);
  const types = new BigInt64Array(n * width);
  rows.forEach((r, i) => {
    for (let j = 0; j < width; j++) {
      const real = j < r.inputIds.length;
      ids[i * width + j] = BigInt(real ? r.inputIds[j] : pad);
      mask[i * width + j] = real ? 1n : 0n;
      types[i * width + j] = BigInt(real ? r.tokenTypeIds[j] : 0);
    }
  });
  const dims = [n, width];
  return {
    inputs: { input_ids: new tf.Tensor("int64", ids, dims), attention_mask: new tf.Tensor("int64", mask, dims), token_type_ids: new tf.Tensor("int64", types, dims) },
    lengths: rows.map((r) => r.inputIds.length),
    ids: rows.map((r) => r.inputIds),
    truncated: rows.filter((r) => r.truncated).length,
  };
}

/**
 * Pool token states `[batch, T, H]` into sentence vectors, ignoring padding.
 * @param pooling `mean` over real tokens (sentence-transformers) or `cls` (first token; BGE).
 * @param normalize L2-normalise each vector.
 * @returns one Float32Array of length H per row.
 */
export function poolStates(data: Float32Array, dims: readonly number[], lengths: readonly number[], pooling: "mean" | "cls", normalize: boolean): Float32Array[] {
  const [n, T, H] = dims;
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float64Array(H);
    if (pooling === "cls") {
      for (let k = 0; k < H; k++) v[k] = data[i * T * H + k];
    } else {
      const len = Math.max(1, lengths[i]);
      for (let t = 0; t < lengths[i]; t++) for (let k = 0; k < H; k++) v[k] += data[(i * T + t) * H + k];
      for (let k = 0; k < H; k++) v[k] /= len;
    }
    let norm = 1;
    if (normalize) {
      let s = 0;
      for (let k = 0; k < H; k++) s += v[k] * v[k];
      norm = Math.sqrt(s) || 1;
    }
    out.push(Float32Array.from(v, (x) => x / norm));
  }
  return out;
}

/**
 * The longest input a model takes: the smallest of the requested length, the tokenizer's
 * `model_max_length` (when set to a real value; HF uses 1e30 for "none") and the model config's
 * `max_position_embeddings` / `n_positions`. Longer inputs would index past the position table.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function effectiveMaxLength(tokenizer: HfTokenizer, model: any, requested: number): number {
  const limits = [requested];
  const tok = Number(tokenizer?.model_max_length);
  if (Number.isFinite(tok) && tok > 0 && tok < 1e9) limits.push(tok);
  const cfg = model?.config ?? {};
  const pos = Number(cfg.max_position_embeddings ?? cfg.n_positions);
  if (Number.isFinite(pos) && pos > 0) limits.push(cfg.model_type === "roberta" || cfg.model_type === "xlm-roberta" ? pos - 2 : pos);
  return Math.min(...limits);
}
