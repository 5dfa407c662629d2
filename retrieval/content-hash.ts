/**
 * Content hash of a retrieval corpus: decides when a cached index (BM25, LanceDB) is stale.
 */
import { createHash } from "node:crypto";
import type { CorpusDoc } from "../corpus/types.ts";

/**
 * SHA-256 (hex, 64 chars) over each document's id, title and text, in the given order.
 *
 * Each doc contributes `JSON.stringify([id, title, text]) + "\n"`, so field boundaries are
 * unambiguous. `year` and `source` are not hashed (they do not change what is indexed). The hash is
 * order-sensitive: the same docs in another order give another hash (and a rebuilt index), which
 * keeps the index's internal doc order — and so its tie-breaking — reproducible.
 * @param docs corpus documents (any length; [] hashes the empty string).
 * @returns lowercase hex digest.
 */
export function corpusContentHash(docs: readonly Pick<CorpusDoc, "id" | "title" | "text">[]): string {
  const h = createHash("sha256");
  for (const d of docs) h.update(JSON.stringify([d.id, d.title, d.text]) + "\n");
  return h.digest("hex");
}

/**
 * Short SHA-256 (hex) of any JSON-serialisable value with object keys sorted; used to key caches by
 * configuration.
 * @param value config object, array or primitive.
 * @param length hex characters to keep (default 16).
 */
export function stableHash(value: unknown, length = 16): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as Record<string, unknown>)
          .sort()
          .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash("sha256")
    .update(JSON.stringify(canon(value)))
    .digest("hex")
    .slice(0, length);
}
