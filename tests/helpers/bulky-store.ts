/**
 * Test helper: a Lance corpus store whose documents are BULKY (tens of MB of abstract text) yet
 * cheap to ingest and index — each abstract is a few hundred long tokens (~200 characters each),
 * so parsing and full-text indexing cost little per byte. A process that held every document
 * in its heap would need far more than the store's streaming paths do, which is what the
 * heap-bound tests check.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { citationXml } from "../corpus/ingest/fixtures.ts";
import { ingestToStore } from "../../corpus/ingest/run-ingest.ts";

/** What {@link buildBulkyStore} made. */
export interface BulkyStore {
  /** Store folder (use as `lance:<uri>`). */
  uri: string;
  /** Number of records (PMIDs `700000` … `700000 + n − 1`). */
  n: number;
  /** Characters of abstract text per record (about). */
  charsPerDoc: number;
}

/**
 * Write `n` structured citations (one XML file per 500) and ingest them into `<dir>/store`.
 * Record i's title is "Bulky record i about <topic>" with topic `cardiology` for i ≡ 0 (mod 7),
 * `oncology` otherwise, so searches have known answers.
 * @param dir - an empty temporary folder.
 * @param n - records.
 * @param charsPerDoc - abstract characters per record (long tokens of letters).
 */
export async function buildBulkyStore(dir: string, n: number, charsPerDoc: number): Promise<BulkyStore> {
  const inDir = join(dir, "in");
  mkdirSync(inDir, { recursive: true });
  const tokens = Math.max(1, Math.round(charsPerDoc / 201));
  for (let f = 0; f * 500 < n; f++) {
    const cites = [];
    for (let i = f * 500; i < Math.min(n, (f + 1) * 500); i++) {
      // A long letter-only token per record and position: few tokens, many bytes.
      const body = Array.from({ length: tokens }, (_, t) => `${String.fromCharCode(97 + ((i + t) % 26))}`.repeat(190) + `x${(i * 31 + t).toString(36)}`).join(" ");
      cites.push(citationXml({ pmid: String(700000 + i), title: `Bulky record ${i} about ${i % 7 === 0 ? "cardiology" : "oncology"}.`, conclusion: body }));
    }
    writeFileSync(join(inDir, `bulky${String(f).padStart(4, "0")}.xml`), `<?xml version="1.0" encoding="utf-8"?>\n<PubmedArticleSet>\n${cites.join("\n")}\n</PubmedArticleSet>\n`);
  }
  const uri = join(dir, "store");
  await ingestToStore([inDir], { store: { uri }, clean: null, jobs: 2 });
  return { uri, n, charsPerDoc };
}
