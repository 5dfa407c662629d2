/**
 * `swap` perturbation: in a seeded share (`strength`) of the passages, the intervention,
 * comparator or outcome (`element`) is replaced by the same element of another study from the
 * document pool (the retrieval corpus) — "aspirin" becomes "clopidogrel" wherever the abstract
 * and its title name it — so the evidence now reports a finding about something else.
 *
 * Elements are found by the documented rules of pico.ts (offline) or by the LLM through the call
 * layer (`extractor: "llm"`, cached). The replacement is the first pool document, in a seeded
 * order (`<seed>:swap:<item>:<passage>`, golden and present passages excluded), whose element of
 * the same kind shares no content word with the original and does not already occur in the
 * passage; at most `maxDonors` documents are examined (default 200 with rules, 5 with the LLM).
 * Every occurrence (case-insensitive, whole words; the first letter's case kept) is replaced;
 * each changed sentence (and the title) is recorded before/after with the term pair and donor.
 * A passage whose element is not found, or for which no donor exists, is left as it is and named
 * in the step's reason.
 */
import { z } from "zod";
import type { ChatModel } from "../../models/types.ts";
import { splitSentences } from "../nodes/text-stats.ts";
import { createLlmPicoExtractor, PICO_ELEMENTS, rulePicoExtractor, type PicoElement, type PicoExtractor } from "./pico.ts";
import { chooseFraction, seededShuffle } from "./select.ts";
import type { PerturbationChange, PerturbationOperator, PerturbedPassage } from "./types.ts";

/** Operator id. */
export const SWAP_OP = "swap";

/** Config of `swap`. */
export const SwapOpSchema = z
  .object({
    op: z.literal(SWAP_OP),
    /** Share of passages whose element is swapped, 0–1. */
    strength: z.number().min(0).max(1).default(1),
    element: z.enum(PICO_ELEMENTS).default("intervention"),
    extractor: z.enum(["rule", "llm"]).default("rule"),
    /** Pool documents examined for a replacement (default 200 with rules, 5 with the LLM). */
    maxDonors: z.number().int().positive().optional(),
  })
  .strict();

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const phraseRe = (phrase: string) => new RegExp(`(?<![\\w-])${escapeRegExp(phrase)}(?![\\w-])`, "gi");
const words = (s: string) => new Set((s.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !["with", "and", "the", "for", "group", "alone", "therapy", "treatment"].includes(w)));

/** `repl` with the first-letter case of `occurrence` (an acronym such as "HRC" is left as it is). */
function caseLike(occurrence: string, repl: string): string {
  if (/^[A-Z]/.test(occurrence)) return repl[0].toUpperCase() + repl.slice(1);
  if (/^[A-Z][a-z]/.test(repl)) return repl[0].toLowerCase() + repl.slice(1);
  return repl;
}

/**
 * Replace every whole-word, case-insensitive occurrence of `phrase` in `text` by `repl`.
 * @returns the new text and how many occurrences were replaced
 */
export function replacePhrase(text: string, phrase: string, repl: string): { text: string; count: number } {
  let count = 0;
  const out = text.replace(phraseRe(phrase), (m) => {
    count++;
    return caseLike(m, repl);
  });
  return { text: out, count };
}

/**
 * Build the operator.
 * @param deps.model the generator, needed only by `extractor: "llm"`
 * @throws ZodError on a bad config; Error when `extractor: "llm"` is asked for without an LLM
 */
export function createSwapOp(config: z.input<typeof SwapOpSchema>, deps: { model?: ChatModel; promptDir?: string } = {}): PerturbationOperator {
  const cfg = SwapOpSchema.parse(config);
  if (cfg.extractor === "llm" && !deps.model) throw new Error('perturbation swap: extractor "llm" needs an LLM generator (use extractor: "rule" offline)');
  const extractor: PicoExtractor = cfg.extractor === "llm" && deps.model ? createLlmPicoExtractor(deps.model, deps.promptDir) : rulePicoExtractor;
  const maxDonors = cfg.maxDonors ?? (cfg.extractor === "llm" ? 5 : 200);
  const el: PicoElement = cfg.element;
  return {
    id: SWAP_OP,
    async apply(evidence, ctx) {
      const chosen = chooseFraction(
        evidence.map((e) => e.id),
        cfg.strength,
        ctx.seed,
        ctx.itemId,
        SWAP_OP,
      );
      const none = (reason: string) => ({ evidence: [...evidence], step: { op: SWAP_OP, applied: false, reason, changes: [], inserted: [] } });
      if (chosen.size === 0) return none(`strength ${cfg.strength} selects no passage of ${evidence.length}`);
      // A loaded pool, else the store's ids (same order, so the same seeded donors); donors fetched by id.
      const loaded = ctx.pool?.length ? ctx.pool : null;
      const poolIds = loaded ? loaded.map((d) => d.id) : (ctx.poolSource?.ids ?? []);
      if (poolIds.length === 0) return none(`no document pool to take a replacement ${el} from (the workflow has no retrieval corpus)`);
      const present = new Set(evidence.map((e) => e.id));
      const byId = new Map(loaded ? loaded.map((d) => [d.id, d]) : []);
      const eligible = poolIds.filter((id) => !present.has(id) && !ctx.goldenIds.has(id));
      const notFound: string[] = [];
      const noDonor: string[] = [];
      const changes: PerturbationChange[] = [];
      const out: PerturbedPassage[] = [];
      for (const p of evidence) {
        if (!chosen.has(p.id)) {
          out.push(p);
          continue;
        }
        const original = (await extractor.extract(p, ctx.run))[el]?.text;
        if (!original) {
          notFound.push(p.id);
          out.push(p);
          continue;
        }
        const own = words(original);
        const hay = `${p.title}\n${p.text}`.toLowerCase();
        let replacement: { text: string; donor: string } | null = null;
        const donors = seededShuffle(eligible, `${ctx.seed}:${SWAP_OP}:${ctx.itemId}:${p.id}`).slice(0, maxDonors);
        if (!loaded && ctx.poolSource) for (const [id, d] of await ctx.poolSource.getDocs(donors.filter((id) => !byId.has(id)))) byId.set(id, d);
        for (const id of donors) {
          const d = byId.get(id);
          if (!d) continue;
          const cand = (await extractor.extract(d, ctx.run))[el]?.text;
          if (!cand || [...words(cand)].some((w) => own.has(w)) || words(cand).size === 0 || hay.includes(cand.toLowerCase())) continue;
          replacement = { text: cand, donor: id };
          break;
        }
        if (!replacement) {
          noDonor.push(p.id);
          out.push(p);
          continue;
        }
        const term = { before: original, after: replacement.text, donor: replacement.donor };
        const title = replacePhrase(p.title, original, replacement.text);
        const text = replacePhrase(p.text, original, replacement.text);
        if (title.count) changes.push({ op: SWAP_OP, docId: p.id, kind: `${el}:title`, before: p.title, after: title.text, term });
        for (const s of splitSentences(p.text)) {
          const r = replacePhrase(s, original, replacement.text);
          if (r.count) changes.push({ op: SWAP_OP, docId: p.id, kind: el, before: s, after: r.text, term });
        }
        out.push({ ...p, title: title.text, text: text.text });
      }
      const reasons = [
        notFound.length ? `no ${el} found (${extractor.id} extractor) in ${notFound.join(", ")}` : "",
        noDonor.length ? `no pool document with a different ${el} among ${Math.min(maxDonors, eligible.length)} examined for ${noDonor.join(", ")}` : "",
      ].filter(Boolean);
      return { evidence: out, step: { op: SWAP_OP, applied: changes.length > 0, ...(reasons.length ? { reason: reasons.join("; ") } : {}), changes, inserted: [] } };
    },
  };
}
