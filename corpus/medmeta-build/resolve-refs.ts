/**
 * PMIDs for references that the JATS reference list gives without one, through E-utilities:
 * 1. the DOI, when the ref has one: esearch `<doi>[doi]`;
 * 2. ecitmatch with journal, year, volume, first page and first author (refs that have journal,
 *    year and either volume or first page); one request for all of a review's refs;
 * 3. esearch on the article title as a phrase, `"<title>"[ti]`.
 * A step counts only when PubMed answers exactly one PMID; otherwise the next step is tried, and a
 * ref that none resolves stays unresolved (counted by the feasibility filter).
 */
import type { EutilsClient } from "../eutils.ts";
import type { JatsRef } from "./jats.ts";

/** How an included study's PMID was found. */
export type PmidSource = "pub-id" | "doi" | "ecitmatch" | "title";

/** Resolution of one ref. */
export interface ResolvedRef {
  refId: string;
  pmid: string | null;
  via: PmidSource | null;
}

/** A title usable as an esearch phrase (quotes, brackets and field tags removed), or null when too short to be specific. */
export function titlePhrase(title: string | null): string | null {
  if (!title) return null;
  const t = title
    .replace(/["[\]]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/[.\s]+$/, "")
    .trim();
  return t.split(" ").length >= 4 ? t : null;
}

async function single(client: EutilsClient, term: string): Promise<string | null> {
  const r = await client.esearch({ term, retmax: 2 });
  return r.count === 1 && r.ids.length === 1 ? r.ids[0] : null;
}

/**
 * Resolve refs to PMIDs (steps in the file header); refs with a PMID keep it (`via: "pub-id"`).
 * @returns one entry per ref, in input order.
 * @throws EutilsError when a request fails after retries (nothing is guessed).
 */
export async function resolveRefs(client: EutilsClient, refs: readonly JatsRef[]): Promise<ResolvedRef[]> {
  const out = new Map<string, ResolvedRef>(refs.map((r) => [r.id, { refId: r.id, pmid: r.pmid, via: r.pmid ? "pub-id" : null }]));
  const open = () => refs.filter((r) => !out.get(r.id)!.pmid);
  for (const r of open()) {
    if (!r.doi) continue;
    const pmid = await single(client, `${r.doi.replace(/["[\]]/g, "")}[doi]`);
    if (pmid) out.set(r.id, { refId: r.id, pmid, via: "doi" });
  }
  const citable = open().filter((r) => r.journal && r.year && (r.volume || r.firstPage));
  if (citable.length) {
    const found = await client.ecitmatch(
      citable.map((r) => ({ journal: r.journal ?? "", year: r.year ?? "", volume: r.volume ?? "", firstPage: r.firstPage ?? "", author: r.firstAuthor ?? "", key: r.id })),
    );
    for (const r of citable) {
      const pmid = found.get(r.id);
      if (pmid) out.set(r.id, { refId: r.id, pmid, via: "ecitmatch" });
    }
  }
  for (const r of open()) {
    const phrase = titlePhrase(r.title);
    if (!phrase) continue;
    const pmid = await single(client, `"${phrase}"[ti]`);
    if (pmid) out.set(r.id, { refId: r.id, pmid, via: "title" });
  }
  return refs.map((r) => out.get(r.id)!);
}
