/**
 * The analyzer's settings as a zod schema, for configs that embed them (the analyzer itself checks
 * them with the zod-free `parseAnalyzerConfig` of {@link ./analyzer.ts}, so a query process does
 * not load zod). tests/retrieval/analyzer.test.ts checks that both accept and reject the same
 * inputs and give the same values.
 */
import { z } from "zod";
import type { AnalyzerConfig } from "./analyzer.ts";

/** Config of an analyzer (see {@link AnalyzerConfig}). */
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

/** Compile-time check that the schema's output is exactly {@link AnalyzerConfig}. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatches: Same<z.infer<typeof AnalyzerConfigSchema>, AnalyzerConfig> = true;
void schemaMatches;
