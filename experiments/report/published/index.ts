/**
 * The three papers' published numbers ({@link PublishedValue}, one per printed cell) and their
 * model names. Plain data: importing this loads zod and nothing else.
 */
import { MEDCONCLUSION_MODELS, MEDCONCLUSION_PUBLISHED } from "./medconclusion.ts";
import { MEDMETA_MODELS, MEDMETA_PUBLISHED } from "./medmeta.ts";
import { RWESUMMARY_MODELS, RWESUMMARY_PUBLISHED } from "./rwesummary.ts";
import { PAPER_IDS, type PaperId, type PublishedValue } from "./schema.ts";

export * from "./schema.ts";

/** Every published value of the three papers: MedMeta, MedConclusion, RWESummary, each in table order. */
export const ALL_PUBLISHED: readonly PublishedValue[] = Object.freeze([...MEDMETA_PUBLISHED, ...MEDCONCLUSION_PUBLISHED, ...RWESUMMARY_PUBLISHED]);

/** Each paper's model names as its main table spells them (the values of `paperModel:`). */
export const PAPER_MODELS: Readonly<Record<PaperId, readonly string[]>> = { medmeta: MEDMETA_MODELS, medconclusion: MEDCONCLUSION_MODELS, rwesummary: RWESUMMARY_MODELS };

/** Human-readable paper titles. */
export const PAPER_TITLES: Readonly<Record<PaperId, string>> = { medmeta: "MedMeta", medconclusion: "MedConclusion", rwesummary: "RWESummary" };

/** Published values of some papers (all when `papers` is omitted). */
export function publishedValues(papers: readonly PaperId[] = PAPER_IDS): PublishedValue[] {
  return ALL_PUBLISHED.filter((v) => papers.includes(v.paper));
}

/** Count of values per paper and table, in order: `[{paper, table, count}]`. */
export function countByTable(values: readonly PublishedValue[] = ALL_PUBLISHED): { paper: PaperId; table: string; count: number }[] {
  const out: { paper: PaperId; table: string; count: number }[] = [];
  for (const v of values) {
    const last = out.find((o) => o.paper === v.paper && o.table === v.table);
    if (last) last.count++;
    else out.push({ paper: v.paper, table: v.table, count: 1 });
  }
  return out;
}

/** The papers whose model names include a label (e.g. "Gemma 27B" → medmeta). */
export function papersOfModel(paperModel: string): PaperId[] {
  return PAPER_IDS.filter((p) => PAPER_MODELS[p].includes(paperModel));
}
