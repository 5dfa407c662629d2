/**
 * The analyzer's settings as a zod schema (the source of the `AnalyzerConfig` type), for configs
 * that embed them; the analyzer itself checks them with the zod-free `parseAnalyzerConfig` of
 * {@link ./analyzer.ts}, so a query process does not load zod. tests/retrieval/analyzer.test.ts checks that both accept and reject the same
 * inputs and give the same values.
 */
import { z } from "zod";

/** Config of an analyzer; `AnalyzerConfig` of {@link ./analyzer.ts} is its `z.infer`. */
export const AnalyzerConfigSchema = z
  .object({
    /** Drop the English stop words (matched on the lowercased token, before stemming). */
    stopWords: z.boolean().default(true),
    /** Apply Porter2 stemming. */
    stem: z.boolean().default(true),
    /** Minimum token length in characters (bm25s/scikit-learn pattern `\w\w+` = 2). */
    minTokenLength: z.number().int().min(1).default(2),
  })
  .strict();
