/**
 * E-utilities past NCBI's 10,000-record cap: a PubMed esearch can only return (and the history
 * server only serve) the first 10,000 records of a result set, however large its `count`. A search
 * whose count exceeds the cap is split into publication-date windows, halving each window
 * recursively until every window holds at most the cap; each window is then searched and fetched on
 * its own, so every record of the search comes back exactly once (a record is in one date window).
 *
 * The same window tree serves random sampling: a seeded draw of positions in [0, count) is mapped
 * through the windows' counts to (window, offset) pairs, and each window that holds a drawn
 * position is listed once (one esearch over the span of its drawn offsets).
 *
 * A single day that still exceeds the cap cannot be split by date: only its first `cap` records
 * are reachable; it is reported in {@link WindowStats.overflow} (never silently dropped).
 *
 * @see NCBI "The E-utilities In-Depth" (ESearch: "PubMed … can only retrieve the first 10,000
 *   records matching the query"); MedMeta §3.2 (noise abstracts sampled at random from a span of years).
 */
import type { EsearchParams, EutilsClient } from "./eutils.ts";
import type { PubmedRecord } from "./types.ts";
import type { PubmedWarning } from "./pubmed-xml.ts";

/** NCBI's retrieval cap for PubMed esearch/efetch (records per result set). */
export const EUTILS_RETRIEVAL_CAP = 10_000;

/** First publication date used when a search gives no date range (PubMed's oldest records are from the 1780s). */
export const EARLIEST_PUBMED_DATE = "1700/01/01";

/** The search a window belongs to: term and filters, without the date range. */
export type WindowedSearch = Pick<EsearchParams, "term" | "hasStructuredAbstract" | "dateType" | "db">;

/** A date window: inclusive day range "YYYY/MM/DD"–"YYYY/MM/DD" and its record count. */
export interface DateWindow {
  minDate: string;
  maxDate: string;
  count: number;
}

/** What a windowed search met on its way (filled in as it goes). */
export interface WindowStats {
  /** esearch calls that only asked for a count (retmax 0). */
  countQueries: number;
  /** Leaf windows searched or fetched. */
  windows: number;
  /** Single-day windows over the cap: only their first `cap` records are reachable. */
  overflow: DateWindow[];
  /** Records seen twice across windows (dropped; 0 unless PubMed dates overlap). */
  duplicates: number;
}

/** A fresh {@link WindowStats}. */
export function emptyWindowStats(): WindowStats {
  return { countQueries: 0, windows: 0, overflow: [], duplicates: 0 };
}

const DAY_MS = 86_400_000;

/** "YYYY/MM/DD", "YYYY/MM" or "YYYY" → UTC day number (days since 1970-01-01); a bare year or month starts at its first day. */
export function dayNumber(date: string, end = false): number {
  const m = /^(\d{4})(?:[/-](\d{1,2}))?(?:[/-](\d{1,2}))?$/.exec(date.trim());
  if (!m) throw new Error(`E-utilities date "${date}": expected YYYY/MM/DD, YYYY/MM or YYYY`);
  const y = Number(m[1]);
  if (end && !m[2]) return Date.UTC(y + 1, 0, 1) / DAY_MS - 1;
  const mo = m[2] ? Number(m[2]) - 1 : 0;
  if (end && !m[3]) return Date.UTC(y, mo + 1, 1) / DAY_MS - 1;
  return Date.UTC(y, mo, m[3] ? Number(m[3]) : 1) / DAY_MS;
}

/** UTC day number → "YYYY/MM/DD". */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, "/");
}

/** Today (UTC) as "YYYY/MM/DD". */
function today(): string {
  return formatDay(Math.floor(Date.now() / DAY_MS));
}

/** Options of the windowed functions. */
export interface WindowOptions {
  /** Records per result set that E-utilities will serve (default {@link EUTILS_RETRIEVAL_CAP}). */
  cap?: number;
  /** Filled in as the search goes (counts, overflowing days, duplicates). */
  stats?: WindowStats;
}

interface WindowNode {
  from: number;
  to: number;
  count: number;
  children?: [WindowNode, WindowNode];
}

/**
 * A lazily split window tree over one search and date range: counts are asked once per window.
 */
class WindowTree {
  readonly cap: number;
  readonly stats: WindowStats;
  private root: WindowNode | null = null;

  constructor(
    private readonly client: EutilsClient,
    private readonly search: WindowedSearch,
    private readonly minDate: string,
    private readonly maxDate: string,
    opts: WindowOptions,
  ) {
    this.cap = opts.cap ?? EUTILS_RETRIEVAL_CAP;
    this.stats = opts.stats ?? emptyWindowStats();
  }

  private params(from: number, to: number): EsearchParams {
    return { ...this.search, minDate: formatDay(from), maxDate: formatDay(to) };
  }

  private async countOf(from: number, to: number): Promise<number> {
    this.stats.countQueries++;
    return (await this.client.esearch({ ...this.params(from, to), retmax: 0 })).count;
  }

  async top(): Promise<WindowNode> {
    if (!this.root) {
      const from = dayNumber(this.minDate);
      const to = dayNumber(this.maxDate, true);
      if (to < from) throw new Error(`E-utilities date range ${this.minDate}–${this.maxDate} is empty`);
      this.root = { from, to, count: await this.countOf(from, to) };
    }
    return this.root;
  }

  /** Split a node in two halves by date (counts asked once); null for a single day. */
  async children(node: WindowNode): Promise<[WindowNode, WindowNode] | null> {
    if (node.from === node.to) return null;
    if (!node.children) {
      const mid = Math.floor((node.from + node.to) / 2);
      const left = { from: node.from, to: mid, count: await this.countOf(node.from, mid) };
      const right = { from: mid + 1, to: node.to, count: await this.countOf(mid + 1, node.to) };
      node.children = [left, right];
    }
    return node.children;
  }

  /** Leaf windows (count ≤ cap, or single overflowing days) in date order. */
  async leaves(node?: WindowNode): Promise<WindowNode[]> {
    const n = node ?? (await this.top());
    if (n.count <= this.cap) return n.count > 0 ? [n] : [];
    const kids = await this.children(n);
    if (!kids) {
      this.stats.overflow.push(toWindow(n));
      return [n];
    }
    return [...(await this.leaves(kids[0])), ...(await this.leaves(kids[1]))];
  }

  /** esearch of one leaf window: ids at offsets [start, start + n). */
  async idsOf(node: WindowNode, start: number, n: number): Promise<string[]> {
    const r = await this.client.esearch({ ...this.params(node.from, node.to), retstart: start, retmax: n });
    return r.ids;
  }

  /** History reference of one leaf window (for efetch). */
  async historyOf(node: WindowNode): Promise<{ webEnv: string; queryKey: string; count: number }> {
    const r = await this.client.esearch({ ...this.params(node.from, node.to), usehistory: true, retmax: 0 });
    if (!r.webEnv || !r.queryKey) throw new Error(`esearch ${formatDay(node.from)}–${formatDay(node.to)}: no history reference (WebEnv) in the response`);
    return { webEnv: r.webEnv, queryKey: r.queryKey, count: Math.min(r.count, this.cap) };
  }

  /**
   * Map positions (0-based, in the order the whole search lists its records) to PMIDs, listing
   * each leaf window that holds a position once. Positions a window cannot serve (past the cap of
   * an overflowing day, or past the sum of the halves' counts) are left out of the result.
   */
  async idsAt(positions: readonly number[], node?: WindowNode, out = new Map<number, string>(), base = 0): Promise<Map<number, string>> {
    const n = node ?? (await this.top());
    const here = positions.filter((p) => p >= base && p < base + n.count);
    if (here.length === 0) return out;
    const kids = n.count > this.cap ? await this.children(n) : null;
    if (kids) {
      await this.idsAt(here, kids[0], out, base);
      await this.idsAt(here, kids[1], out, base + kids[0].count);
      return out;
    }
    const rel = here.map((p) => p - base).filter((p) => p < this.cap);
    if (n.count > this.cap && !this.stats.overflow.some((w) => w.minDate === formatDay(n.from))) this.stats.overflow.push(toWindow(n));
    if (rel.length === 0) return out;
    this.stats.windows++;
    const lo = Math.min(...rel);
    const hi = Math.max(...rel);
    const ids = await this.idsOf(n, lo, hi - lo + 1);
    for (const p of rel) if (ids[p - lo] !== undefined) out.set(p + base, ids[p - lo]);
    return out;
  }
}

function toWindow(n: WindowNode): DateWindow {
  return { minDate: formatDay(n.from), maxDate: formatDay(n.to), count: n.count };
}

/**
 * Split a search into date windows of at most `cap` records each (halving recursively).
 * @param range inclusive publication-date range; default {@link EARLIEST_PUBMED_DATE} to today.
 * @returns the leaf windows in date order (empty windows left out); single days over the cap are
 *   included and also listed in `stats.overflow`.
 */
export async function searchWindows(client: EutilsClient, search: WindowedSearch, range: { minDate?: string; maxDate?: string } = {}, opts: WindowOptions = {}): Promise<DateWindow[]> {
  const tree = new WindowTree(client, search, range.minDate ?? EARLIEST_PUBMED_DATE, range.maxDate ?? today(), opts);
  return (await tree.leaves()).map(toWindow);
}

/**
 * Fetch every record of a search, past the 10,000 cap: one history search + batched efetch per
 * date window ({@link searchWindows}). Records are yielded in window order; a PMID already yielded
 * is dropped and counted in `stats.duplicates`.
 * @param max stop after this many records (default: all).
 */
export async function* fetchAllRecords(
  client: EutilsClient,
  search: WindowedSearch,
  range: { minDate?: string; maxDate?: string } = {},
  opts: WindowOptions & { max?: number; onWarning?: (w: PubmedWarning) => void } = {},
): AsyncGenerator<PubmedRecord> {
  const tree = new WindowTree(client, search, range.minDate ?? EARLIEST_PUBMED_DATE, range.maxDate ?? today(), opts);
  const max = opts.max ?? Infinity;
  const seen = new Set<string>();
  let yielded = 0;
  for (const leaf of await tree.leaves()) {
    if (yielded >= max) return;
    tree.stats.windows++;
    const h = await tree.historyOf(leaf);
    const count = Math.min(h.count, max - yielded);
    for await (const rec of client.fetchRecords({ webEnv: h.webEnv, queryKey: h.queryKey, count }, opts.onWarning)) {
      if (seen.has(rec.pmid)) {
        tree.stats.duplicates++;
        continue;
      }
      seen.add(rec.pmid);
      yield rec;
      if (++yielded >= max) return;
    }
  }
}

/**
 * A random sampler over the records of one search: {@link WindowSampler.total} records, and a
 * lookup of the PMIDs at given positions through the same date windows as {@link fetchAllRecords}.
 */
export interface WindowSampler {
  /** Records the search matches over the whole range. */
  readonly total: number;
  /** PMIDs at the given positions (positions a window cannot serve are absent from the map). */
  idsAt(positions: readonly number[]): Promise<Map<number, string>>;
  readonly stats: WindowStats;
}

/**
 * Build a {@link WindowSampler} (asks the total count once; windows are split as positions need them).
 * @throws Error on an empty or malformed date range.
 */
export async function createWindowSampler(client: EutilsClient, search: WindowedSearch, range: { minDate: string; maxDate: string }, opts: WindowOptions = {}): Promise<WindowSampler> {
  const tree = new WindowTree(client, search, range.minDate, range.maxDate, opts);
  const top = await tree.top();
  return { total: top.count, idsAt: (p) => tree.idsAt(p), stats: tree.stats };
}
