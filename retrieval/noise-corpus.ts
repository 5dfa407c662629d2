/**
 * Noise corpus builder: golden abstracts + N noise abstracts sampled with a seed from a pool,
 * recording which documents are golden — MedMeta's proxy evaluation corpus (2,250 golden + 22,750
 * noise = 25,000 PubMed abstracts).
 *
 * @see MedMeta (seed 001) §Standard-RAG workflow.
 */
import seedrandom from "seedrandom";
import { z } from "zod";
import type { CorpusDoc } from "../corpus/types.ts";
import type { DocumentSource } from "../corpus/store/types.ts";

/** Config of {@link buildNoiseCorpus}. */
export const NoiseCorpusConfigSchema = z
  .object({
    /** Number of noise docs to sample (MedMeta: 22,750). */
    noiseCount: z.number().int().min(0),
    /** seedrandom seed; the same seed, golden set and pool give the same corpus. */
    seed: z.string().default("medsynth-noise-v1"),
    /**
     * Shuffle golden and noise docs together (seeded). On by default: with golden docs first, a
     * retriever that breaks score ties by index order would favour golden docs.
     */
    shuffle: z.boolean().default(true),
  })
  .strict();
/** Input of {@link NoiseCorpusConfigSchema}. */
export type NoiseCorpusConfig = z.input<typeof NoiseCorpusConfigSchema>;

/** A built noise corpus. */
export interface NoiseCorpus {
  /** Golden + noise docs (shuffled unless `shuffle: false`, then golden first, noise in sampled order). */
  docs: CorpusDoc[];
  /** Ids of the golden docs. */
  goldenIds: ReadonlySet<string>;
  goldenCount: number;
  noiseCount: number;
  seed: string;
  /** Pool docs that were not eligible: same id as a golden doc, or repeated id within the pool. */
  excludedFromPool: { golden: number; duplicate: number };
  /** Golden docs dropped because their id repeated an earlier golden doc. */
  duplicateGolden: number;
}

/**
 * Builds golden + sampled noise. Sampling is a seeded partial Fisher–Yates shuffle of the eligible
 * pool (pool minus golden ids, first occurrence of each id), so every subset of size N is equally
 * likely and the result depends only on (golden ids, pool order, seed).
 * @param golden golden documents (duplicate ids are dropped and counted).
 * @param pool candidate noise documents.
 * @param config `noiseCount` (required), `seed`, `shuffle`.
 * @throws Error when the eligible pool holds fewer than `noiseCount` docs (names both numbers); ZodError on bad config.
 */
export function buildNoiseCorpus(golden: readonly CorpusDoc[], pool: readonly CorpusDoc[], config: NoiseCorpusConfig): NoiseCorpus {
  const cfg = NoiseCorpusConfigSchema.parse(config);
  const goldenIds = new Set<string>();
  const goldenDocs: CorpusDoc[] = [];
  let duplicateGolden = 0;
  for (const d of golden) {
    if (goldenIds.has(d.id)) duplicateGolden++;
    else {
      goldenIds.add(d.id);
      goldenDocs.push(d);
    }
  }
  const seen = new Set<string>();
  const eligible: CorpusDoc[] = [];
  const excluded = { golden: 0, duplicate: 0 };
  for (const d of pool) {
    if (goldenIds.has(d.id)) excluded.golden++;
    else if (seen.has(d.id)) excluded.duplicate++;
    else {
      seen.add(d.id);
      eligible.push(d);
    }
  }
  if (eligible.length < cfg.noiseCount) {
    throw new Error(
      `buildNoiseCorpus: noiseCount ${cfg.noiseCount} exceeds the ${eligible.length} eligible pool docs (pool ${pool.length}, ${excluded.golden} golden ids, ${excluded.duplicate} repeated ids excluded)`,
    );
  }
  const rng = seedrandom(cfg.seed);
  const idx = eligible.map((_, i) => i);
  for (let i = 0; i < cfg.noiseCount; i++) {
    const j = i + Math.floor(rng() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const noise = idx.slice(0, cfg.noiseCount).map((i) => eligible[i]);
  const docs = [...goldenDocs, ...noise];
  if (cfg.shuffle) {
    const rng2 = seedrandom(`${cfg.seed}/order`);
    for (let i = docs.length - 1; i > 0; i--) {
      const j = Math.floor(rng2() * (i + 1));
      [docs[i], docs[j]] = [docs[j], docs[i]];
    }
  }
  return { docs, goldenIds, goldenCount: goldenDocs.length, noiseCount: noise.length, seed: cfg.seed, excludedFromPool: excluded, duplicateGolden };
}

/**
 * {@link buildNoiseCorpus} over a corpus store, reading lazily: two passes over the id column only
 * (count the eligible ids, then find the sampled positions), then the sampled documents fetched by
 * id — the pool's documents are never materialised (memory: 4 bytes per eligible id plus the
 * sample). Given a source whose `ids()` order equals `pool`'s order, the result equals
 * `buildNoiseCorpus(golden, pool, config)` (same seed → same corpus).
 * @param golden - golden documents (duplicate ids dropped and counted).
 * @param source - the pool (ids are unique in a store, so `excludedFromPool.duplicate` is 0).
 * @param config - `noiseCount` (required), `seed`, `shuffle`.
 * @throws Error when the eligible pool holds fewer than `noiseCount` ids, or the store no longer
 *   holds a sampled id; ZodError on bad config.
 */
export async function buildNoiseCorpusFromSource(golden: readonly CorpusDoc[], source: DocumentSource, config: NoiseCorpusConfig): Promise<NoiseCorpus> {
  const cfg = NoiseCorpusConfigSchema.parse(config);
  const goldenIds = new Set<string>();
  const goldenDocs: CorpusDoc[] = [];
  let duplicateGolden = 0;
  for (const d of golden) {
    if (goldenIds.has(d.id)) duplicateGolden++;
    else {
      goldenIds.add(d.id);
      goldenDocs.push(d);
    }
  }
  const excluded = { golden: 0, duplicate: 0 };
  let eligible = 0;
  for await (const ids of source.ids()) for (const id of ids) goldenIds.has(id) ? excluded.golden++ : eligible++;
  if (eligible < cfg.noiseCount) {
    throw new Error(
      `buildNoiseCorpus: noiseCount ${cfg.noiseCount} exceeds the ${eligible} eligible pool docs (pool ${eligible + excluded.golden}, ${excluded.golden} golden ids, 0 repeated ids excluded)`,
    );
  }
  const rng = seedrandom(cfg.seed);
  const idx = new Uint32Array(eligible);
  for (let i = 0; i < eligible; i++) idx[i] = i;
  for (let i = 0; i < cfg.noiseCount; i++) {
    const j = i + Math.floor(rng() * (idx.length - i));
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  const slotOf = new Map<number, number>();
  for (let i = 0; i < cfg.noiseCount; i++) slotOf.set(idx[i], i);
  const noiseIds: string[] = new Array<string>(cfg.noiseCount);
  let pos = 0;
  for await (const ids of source.ids()) {
    for (const id of ids) {
      if (goldenIds.has(id)) continue;
      const slot = slotOf.get(pos++);
      if (slot !== undefined) noiseIds[slot] = id;
    }
  }
  const fetched = await source.getDocs(noiseIds);
  const noise = noiseIds.map((id) => {
    const d = fetched.get(id);
    if (!d) throw new Error(`buildNoiseCorpus: sampled id "${id}" is missing from the corpus store (changed while sampling?)`);
    return d;
  });
  const docs = [...goldenDocs, ...noise];
  if (cfg.shuffle) {
    const rng2 = seedrandom(`${cfg.seed}/order`);
    for (let i = docs.length - 1; i > 0; i--) {
      const j = Math.floor(rng2() * (i + 1));
      [docs[i], docs[j]] = [docs[j], docs[i]];
    }
  }
  return { docs, goldenIds, goldenCount: goldenDocs.length, noiseCount: noise.length, seed: cfg.seed, excludedFromPool: excluded, duplicateGolden };
}
