/**
 * Registry of dataset loaders: name → loader, with a short description and task kind.
 * Explicit imports only (no discovery by side effect).
 */
import type { z } from "zod";
import type { DatasetTaskKind, LoadedDataset } from "./loaded-dataset.ts";
import { PubmedqaOptionsSchema, loadPubmedqa } from "./pubmedqa.ts";
import { MedMetaOptionsSchema, loadMedMeta } from "./medmeta.ts";
import { MedEvidenceOptionsSchema, loadMedEvidence } from "./medevidence.ts";
import { Ms2OptionsSchema, loadMs2 } from "./ms2.ts";
import { MslrOptionsSchema, loadMslr } from "./mslr.ts";
import { Cohen2006OptionsSchema, loadCohen2006 } from "./cohen2006.ts";
import { MslrAnnotationsOptionsSchema, loadMslrAnnotations } from "./mslr-annotations.ts";
import { RweGlp1OptionsSchema, loadRweGlp1 } from "./rwe-glp1.ts";
import { OhdsiHcqOptionsSchema, loadOhdsiHcq } from "./ohdsi-hcq.ts";
import { JsonlOptionsSchema, loadJsonlTasks } from "./jsonl.ts";
import { loadStoreConclusionTasks, StoreConclusionOptionsSchema } from "../store/conclusion-view.ts";

/** One registered dataset. `load` validates its options with `optionsSchema` (strict: unknown keys throw). */
export interface DatasetEntry {
  name: string;
  description: string;
  taskKind: DatasetTaskKind | "mixed";
  /** Bundled file(s) relative to `sharedDataDir()`, or null (user-supplied file). */
  source: string | null;
  /** Whether `load()` works without options (false for "jsonl", which needs a path). */
  bundled: boolean;
  optionsSchema: z.ZodType;
  load(options?: unknown): Promise<LoadedDataset>;
}

// Each loader parses its own options with its strict schema, so passing `unknown` through is safe.
const entry = (e: Omit<DatasetEntry, "load"> & { load: (o: any) => Promise<LoadedDataset<any>> }): DatasetEntry => ({
  ...e,
  load: (options?: unknown) => e.load(options ?? {}),
});

/** All datasets, keyed by name. */
export const DATASETS: Readonly<Record<string, DatasetEntry>> = Object.freeze(
  Object.fromEntries(
    [
      entry({ name: "pubmedqa", description: "PubMedQA PQA-L: structured abstract minus conclusion → conclusion (MedConclusion-style)", taskKind: "conclusion", source: "pubmedqa/ori_pqal.json", bundled: true, optionsSchema: PubmedqaOptionsSchema, load: loadPubmedqa }),
      entry({ name: "medmeta", description: "MedMeta: meta-analysis title → conclusion; golden PMIDs, no abstracts", taskKind: "synthesis", source: "medmeta/MedMeta.csv", bundled: true, optionsSchema: MedMetaOptionsSchema, load: loadMedMeta }),
      entry({ name: "medevidence", description: "MedEvidence: clinical question → direction of effect from golden abstracts (+docs, qrels)", taskKind: "synthesis", source: "medevidence/med-evidence-abstract.jsonl", bundled: true, optionsSchema: MedEvidenceOptionsSchema, load: loadMedEvidence }),
      entry({ name: "ms2", description: "MS² sample: review title → conclusion from included studies' abstracts", taskKind: "synthesis", source: "mslr/ms2-sample.json", bundled: true, optionsSchema: Ms2OptionsSchema, load: loadMs2 }),
      entry({ name: "mslr", description: "MSLR2022 test summaries: review background → conclusion from included studies", taskKind: "synthesis", source: "mslr/mslr-test-summaries.jsonl", bundled: true, optionsSchema: MslrOptionsSchema, load: loadMslr }),
      entry({ name: "cohen2006", description: "Cohen 2006 drug-class review screening sets as qrels (+ abstracts as docs)", taskKind: "qrels", source: "cohen2006/*.csv", bundled: true, optionsSchema: Cohen2006OptionsSchema, load: loadCohen2006 }),
      entry({ name: "mslr-annotations", description: "MSLR Cochrane expert ratings of generated vs target summaries", taskKind: "annotations", source: "mslr-annotations/cochrane-A1.tsv", bundled: true, optionsSchema: MslrAnnotationsOptionsSchema, load: loadMslrAnnotations }),
      entry({ name: "rwe-glp1", description: "RWESummary example study: GLP-1 RA vs SGLT2i, respiratory hospitalisations", taskKind: "rwe", source: "rwe/glp1-vs-sglt2i-respiratory.json", bundled: true, optionsSchema: RweGlp1OptionsSchema, load: loadRweGlp1 }),
      entry({ name: "ohdsi-hcq", description: "OHDSI hydroxychloroquine safety study: one RWE study per comparison", taskKind: "rwe", source: "rwe/ohdsi-hcq/", bundled: true, optionsSchema: OhdsiHcqOptionsSchema, load: loadOhdsiHcq }),
      entry({ name: "corpus-store", description: "MedConclusion tasks streamed from a Lance corpus store built by `corpus ingest --store`; needs {uri}", taskKind: "conclusion", source: null, bundled: false, optionsSchema: StoreConclusionOptionsSchema, load: loadStoreConclusionTasks }),
      entry({ name: "jsonl", description: "Our own JSONL task files (conclusion | synthesis | rwe per line); needs {path}", taskKind: "mixed", source: null, bundled: false, optionsSchema: JsonlOptionsSchema, load: loadJsonlTasks }),
    ].map((e) => [e.name, e]),
  ),
);

/** Names of all registered datasets, in registry order. */
export function datasetNames(): string[] {
  return Object.keys(DATASETS);
}

/**
 * Look up a dataset entry.
 * @throws Error "unknown dataset "x"; valid: pubmedqa, medmeta, …" on an unknown name.
 */
export function getDataset(name: string): DatasetEntry {
  const e = Object.prototype.hasOwnProperty.call(DATASETS, name) ? DATASETS[name] : undefined;
  if (!e) throw new Error(`unknown dataset "${name}"; valid: ${datasetNames().join(", ")}`);
  return e;
}

/** Summary row of {@link listDatasets}. */
export interface DatasetInfo {
  name: string;
  description: string;
  taskKind: DatasetTaskKind | "mixed";
  source: string | null;
  /** Number of items, when counted (`withCounts`) and the dataset is bundled; else null. */
  itemCount: number | null;
}

/**
 * List the registered datasets.
 * @param options.withCounts load each bundled dataset to count its items (≈ 0.3 s for all); default false.
 * @param options.dataDir data folder passed to the loaders when counting.
 */
export async function listDatasets(options: { withCounts?: boolean; dataDir?: string } = {}): Promise<DatasetInfo[]> {
  const out: DatasetInfo[] = [];
  for (const e of Object.values(DATASETS)) {
    let itemCount: number | null = null;
    if (options.withCounts && e.bundled) itemCount = (await e.load(options.dataDir ? { dataDir: options.dataDir } : {})).items.length;
    out.push({ name: e.name, description: e.description, taskKind: e.taskKind, source: e.source, itemCount });
  }
  return out;
}

/**
 * Load a dataset by name.
 * @param name registry name (see {@link datasetNames}).
 * @param options the loader's options (validated by its strict zod schema).
 * @throws Error listing valid names on an unknown name; zod error on bad options; loader errors.
 */
export async function loadDataset(name: string, options?: unknown): Promise<LoadedDataset> {
  return getDataset(name).load(options);
}
