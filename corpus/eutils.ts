/**
 * NCBI E-utilities client for users who are online: esearch, epost and batched efetch of PubMed
 * XML; for building MedMeta items, efetch of PMC JATS (`db=pmc`), ecitmatch and the PMC ID
 * converter (PMID → PMCID, a separate NCBI service at `idconvUrl`, sent without the API key); with API key, the NCBI rate limits (3 requests/s without a key, 10 with one), and retries
 * with exponential backoff that honour `Retry-After`.
 *
 * The base URL is configurable so tests run against a local fake server on 127.0.0.1. The API key
 * is sent as `api_key` and never appears in error messages (URLs in errors are redacted).
 *
 * @see MedConclusion §3.1.1 (hasstructuredabstract esearch over a date span, then epost + efetch);
 *   NCBI "A General Introduction to the E-utilities" (usage limits: 3 req/s, 10 with a key).
 */
import { z } from "zod";
import type { PubmedRecord } from "./types.ts";
import { parsePubmedXmlString, type PubmedWarning } from "./pubmed-xml.ts";

/** Default E-utilities endpoint. */
export const EUTILS_BASE_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/";

/** Default PMC ID converter endpoint (PMID ↔ PMCID ↔ DOI; JSON with `records[]`). */
export const IDCONV_URL = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/";

/** Most ids the PMC ID converter takes per request. */
export const IDCONV_MAX_IDS = 200;

/** Client configuration (zod-checked; unknown keys rejected). */
export const EutilsConfigSchema = z
  .object({
    baseUrl: z.string().url().default(EUTILS_BASE_URL),
    /** PMC ID converter endpoint ({@link IDCONV_URL}); tests point it at a local fake. */
    idconvUrl: z.string().url().default(IDCONV_URL),
    /** NCBI API key (raises the limit to 10 requests/s). Take it from env/config, never hard-code. */
    apiKey: z.string().min(1).nullable().default(null),
    tool: z.string().default("medsynth"),
    email: z.string().nullable().default(null),
    /** Requests per second; default 3, or 10 with an API key. */
    requestsPerSecond: z.number().positive().max(10).nullable().default(null),
    /** Retries after the first attempt for 429, 5xx and network errors. */
    maxRetries: z.number().int().min(0).default(4),
    /** First backoff delay in ms (doubles each retry) when no Retry-After is given. */
    backoffMs: z.number().int().min(0).default(500),
    /** Longest wait honoured from Retry-After, in ms. */
    maxRetryAfterMs: z.number().int().min(0).default(60_000),
    timeoutMs: z.number().int().positive().default(60_000),
    /** PMIDs per efetch request. */
    batchSize: z.number().int().min(1).max(10_000).default(200),
  })
  .strict();
/** What a caller may pass for {@link EutilsConfigSchema} (keys with defaults are optional). */
export type EutilsConfig = z.input<typeof EutilsConfigSchema>;

/** Result of esearch. */
export interface EsearchResult {
  count: number;
  ids: string[];
  webEnv: string | null;
  queryKey: string | null;
}

/** esearch parameters. */
export interface EsearchParams {
  term: string;
  db?: string;
  /** Add `AND hasstructuredabstract` to the term (MedConclusion §3.1.1). */
  hasStructuredAbstract?: boolean;
  /** Date range "YYYY/MM/DD" (or "YYYY"); both needed by NCBI. */
  minDate?: string;
  maxDate?: string;
  /** Date type for the range: "pdat" (publication, default), "edat", "mdat". */
  dateType?: string;
  retmax?: number;
  retstart?: number;
  /** Keep the result on the history server (gives webEnv + queryKey). */
  usehistory?: boolean;
}

/** A history-server reference. */
export interface HistoryRef {
  webEnv: string;
  queryKey: string;
}

/** Error from an E-utilities call (URL redacted: no API key). */
export class EutilsError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "EutilsError";
  }
}

/**
 * A fetch failure with its cause: undici's "fetch failed" plus the system error code and host
 * (e.g. "fetch failed (ENOTFOUND eutils.ncbi.nlm.nih.gov)"), or a timeout's message.
 */
export function fetchErrorText(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; hostname?: string; message?: string } };
  const msg = e instanceof Error ? e.message : String(err);
  const c = e?.cause;
  const cause = c ? [c.code, c.hostname].filter(Boolean).join(" ") || c.message : "";
  return cause ? `${msg} (${cause})` : msg;
}

/** One record of the PMC ID converter: the PMCID of a PMID, or why there is none. */
export interface IdconvRecord {
  /** The PMID asked for. */
  pmid: string;
  /** "PMC…" or null when the article is not in PMC. */
  pmcid: string | null;
  doi: string | null;
  /** The converter's `errmsg` (e.g. "Identifier not found in PMC"), or null. */
  error: string | null;
}

/** One citation for ecitmatch (fields as printed in the reference; any may be empty). */
export interface CitationQuery {
  journal: string;
  year: string;
  volume: string;
  firstPage: string;
  /** First author, "Surname Initials" or a surname. */
  author: string;
  /** Caller's key, echoed back. */
  key: string;
}

/** The client. */
export interface EutilsClient {
  readonly config: z.output<typeof EutilsConfigSchema>;
  esearch(params: EsearchParams): Promise<EsearchResult>;
  epost(ids: readonly string[], db?: string): Promise<HistoryRef>;
  /** Fetch PubMed XML in batches of `batchSize` PMIDs (or from a history reference); yields one XML document per batch. */
  efetchXml(source: { ids: readonly string[] } | (HistoryRef & { count: number }), db?: string): AsyncGenerator<string>;
  /** efetch + {@link parsePubmedXmlString}: yields records. */
  fetchRecords(source: { ids: readonly string[] } | (HistoryRef & { count: number }), onWarning?: (w: PubmedWarning) => void): AsyncGenerator<PubmedRecord>;
  /**
   * PMID → PMCID through the PMC ID converter, in requests of ≤ {@link IDCONV_MAX_IDS} ids
   * (`format=json`, with `tool`/`email`). Every asked PMID gets one record, in input order; a PMID
   * the converter does not list gets `error: "not returned by the ID converter"`.
   * @throws EutilsError when a response is not the converter's JSON (message names the URL).
   */
  idconv(pmids: readonly string[]): Promise<IdconvRecord[]>;
  /**
   * efetch `db=pmc` of PMC articles (JATS XML, full text when the article is in the open-access
   * subset); one request per batch of `batchSize` ids; yields one `<pmc-articleset>` per batch.
   * @param pmcids "PMC123" or "123" (sent without the prefix).
   */
  efetchPmc(pmcids: readonly string[]): AsyncGenerator<string>;
  /**
   * ecitmatch: PMIDs of citations given as journal/year/volume/page/author.
   * @returns key → PMID for the citations PubMed matched uniquely (NOT_FOUND / AMBIGUOUS left out).
   */
  ecitmatch(citations: readonly CitationQuery[]): Promise<Map<string, string>>;
  /** Requests sent so far (including retries). */
  readonly requestCount: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Parse a Retry-After header (seconds or an HTTP date) to milliseconds.
 * @returns the delay, or null when absent/unparseable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const t = value.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const at = Date.parse(t);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

function redact(url: string): string {
  return url.replace(/([?&]api_key=)[^&]*/g, "$1***");
}

/** The parsed config {@link createEutilsClient} works with. */
type ResolvedEutilsConfig = z.output<typeof EutilsConfigSchema>;

/**
 * Step 1 of the client: request slots. The returned function waits for the next slot: start times
 * spaced by at least 1/rps s, across concurrent callers. Slots are taken one after another and
 * spaced from the previous request's actual start (not its planned one), so a late timer on a
 * loaded machine never lets two requests run closer together than the interval.
 */
function createRequestSlots(requestsPerSecond: number): () => Promise<void> {
  const interval = 1000 / requestsPerSecond;
  let slotChain: Promise<void> = Promise.resolve();
  let lastStart = Number.NEGATIVE_INFINITY;
  return function takeSlot(): Promise<void> {
    const slot = slotChain.then(async () => {
      for (let wait = lastStart + interval - Date.now(); wait > 0; wait = lastStart + interval - Date.now()) await sleep(wait);
      lastStart = Date.now();
    });
    slotChain = slot;
    return slot;
  };
}

/** A request function of the client's transport: `endpoint` is a name under the base URL or an absolute URL. */
type EutilsCall = (endpoint: string, params: Record<string, string>, method?: "GET" | "POST", opts?: { apiKey?: boolean; label?: string }) => Promise<string>;

/**
 * Step 2 of the client: the transport. One request = identification parameters added, a slot
 * taken, then retries with exponential backoff (or the server's Retry-After, capped) on network
 * errors, 429 and 5xx; other HTTP errors throw at once.
 * @returns `call` and a live count of the requests sent (retries included).
 * @throws EutilsError (from `call`) naming the endpoint and the redacted URL.
 */
function createEutilsTransport(cfg: ResolvedEutilsConfig): { call: EutilsCall; requestCount: () => number } {
  const base = cfg.baseUrl.endsWith("/") ? cfg.baseUrl : `${cfg.baseUrl}/`;
  const takeSlot = createRequestSlots(cfg.requestsPerSecond ?? (cfg.apiKey ? 10 : 3));
  let requestCount = 0;
  async function call(endpoint: string, params: Record<string, string>, method: "GET" | "POST" = "GET", opts: { apiKey?: boolean; label?: string } = {}): Promise<string> {
    const label = opts.label ?? endpoint;
    const all: Record<string, string> = { ...params, tool: cfg.tool };
    if (cfg.email) all.email = cfg.email;
    if (cfg.apiKey && opts.apiKey !== false) all.api_key = cfg.apiKey;
    const body = new URLSearchParams(all).toString();
    const target = /^https?:\/\//.test(endpoint) ? endpoint : `${base}${endpoint}`;
    const url = method === "GET" ? `${target}?${body}` : target;
    let lastError = "";
    for (let attempt = 0; attempt <= cfg.maxRetries; attempt++) {
      await takeSlot();
      requestCount++;
      let status: number | null = null;
      let retryAfter: number | null = null;
      try {
        const res = await fetch(url, {
          method,
          body: method === "POST" ? body : undefined,
          headers: method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : undefined,
          signal: AbortSignal.timeout(cfg.timeoutMs),
        });
        status = res.status;
        if (res.ok) return await res.text();
        retryAfter = parseRetryAfter(res.headers.get("retry-after"));
        lastError = `HTTP ${res.status} ${res.statusText}`;
        await res.body?.cancel();
        if (res.status !== 429 && res.status < 500) throw new EutilsError(`${label} ${redact(url)}: ${lastError}`, res.status);
      } catch (err) {
        if (err instanceof EutilsError) throw err;
        if (status === null) lastError = fetchErrorText(err);
      }
      if (attempt < cfg.maxRetries) await sleep(retryAfter !== null ? Math.min(retryAfter, cfg.maxRetryAfterMs) : cfg.backoffMs * 2 ** attempt);
    }
    throw new EutilsError(`${label} ${redact(url)}: failed after ${cfg.maxRetries + 1} attempts: ${lastError}`, null);
  }
  return { call, requestCount: () => requestCount };
}

/** esearch's query parameters for `p`. @throws Error when only one of minDate/maxDate is given. */
function esearchQuery(p: EsearchParams): Record<string, string> {
  const term = p.hasStructuredAbstract ? `(${p.term}) AND hasstructuredabstract` : p.term;
  const params: Record<string, string> = { db: p.db ?? "pubmed", term, retmode: "json", retmax: String(p.retmax ?? 20), retstart: String(p.retstart ?? 0) };
  if (p.minDate || p.maxDate) {
    if (!p.minDate || !p.maxDate) throw new Error("esearch: minDate and maxDate must be given together");
    params.mindate = p.minDate;
    params.maxdate = p.maxDate;
    params.datetype = p.dateType ?? "pdat";
  }
  if (p.usehistory) params.usehistory = "y";
  return params;
}

/** esearch's JSON answer as an {@link EsearchResult}. @throws EutilsError on non-JSON or an `ERROR` answer. */
function parseEsearchResponse(text: string): EsearchResult {
  let json: { esearchresult?: { count?: string; idlist?: string[]; webenv?: string; querykey?: string; ERROR?: string } };
  try {
    json = JSON.parse(text);
  } catch {
    throw new EutilsError(`esearch: response is not JSON: ${text.slice(0, 200)}`, null);
  }
  const r = json.esearchresult;
  if (!r || r.ERROR) throw new EutilsError(`esearch: ${r?.ERROR ?? "no esearchresult in response"}`, null);
  return { count: Number(r.count ?? 0), ids: r.idlist ?? [], webEnv: r.webenv ?? null, queryKey: r.querykey ?? null };
}

/** epost's XML answer as a history reference. @throws EutilsError when WebEnv or QueryKey is missing. */
function parseEpostResponse(text: string): HistoryRef {
  const webEnv = /<WebEnv>([^<]+)<\/WebEnv>/.exec(text)?.[1];
  const queryKey = /<QueryKey>([^<]+)<\/QueryKey>/.exec(text)?.[1];
  if (!webEnv || !queryKey) throw new EutilsError(`epost: no WebEnv/QueryKey in response: ${text.slice(0, 200)}`, null);
  return { webEnv, queryKey };
}

/**
 * Adds the records of one ID-converter answer to `out` (PMID → record; no PMCID → `error` from
 * the converter's errmsg). `where` names the request in errors.
 * @throws EutilsError on non-JSON or an answer without `records[]`.
 */
function addIdconvRecords(text: string, where: string, out: Map<string, IdconvRecord>): void {
  let json: { status?: string; message?: string; records?: Record<string, unknown>[] };
  try {
    json = JSON.parse(text);
  } catch {
    throw new EutilsError(`idconv ${where}: response is not JSON: ${text.slice(0, 200)}`, null);
  }
  if (!Array.isArray(json.records)) throw new EutilsError(`idconv ${where}: no records[] in response${json.message ? ` (${json.message})` : ""}`, null);
  for (const r of json.records) {
    const str = (k: string) => (typeof r[k] === "string" || typeof r[k] === "number" ? String(r[k]) : null);
    const pmid = str("pmid") ?? str("requested-id");
    if (!pmid) continue;
    const pmcid = str("pmcid");
    out.set(pmid, { pmid, pmcid, doi: str("doi"), error: pmcid ? null : (str("errmsg") ?? "no pmcid in the converter's record") });
  }
}

/** ecitmatch's `bdata` for a batch: one `journal|year|volume|page|author|key|` line per citation, `|` and line breaks in fields blanked. */
function ecitmatchBdata(citations: readonly CitationQuery[]): string {
  const clean = (s: string) => s.replace(/[|\r\n]/g, " ").trim();
  return citations.map((c) => `${[c.journal, c.year, c.volume, c.firstPage, c.author, c.key].map(clean).join("|")}|`).join("\r");
}

/** Adds ecitmatch's unique matches (key → PMID; NOT_FOUND / AMBIGUOUS lines have no numeric 7th field) to `found`. */
function addEcitmatchMatches(text: string, found: Map<string, string>): void {
  for (const line of text.split(/\r?\n|\r/)) {
    const f = line.split("|");
    if (f.length >= 7 && /^\d+$/.test(f[6].trim())) found.set(f[5].trim(), f[6].trim());
  }
}

/**
 * Create an E-utilities client. Steps: parse the config; build the transport (rate-limited
 * request slots, retries); bind each E-utility to it (query builders and answer parsers above).
 * @param config - {@link EutilsConfigSchema}.
 * @throws ZodError on an invalid or unknown config key.
 */
export function createEutilsClient(config: EutilsConfig = {}): EutilsClient {
  const cfg = EutilsConfigSchema.parse(config);
  const transport = createEutilsTransport(cfg);
  const call = transport.call;

  async function* efetchXml(source: { ids: readonly string[] } | (HistoryRef & { count: number }), db = "pubmed"): AsyncGenerator<string> {
    const common = { db, retmode: "xml", rettype: "abstract" };
    if ("ids" in source) {
      for (let i = 0; i < source.ids.length; i += cfg.batchSize) {
        const ids = source.ids.slice(i, i + cfg.batchSize).join(",");
        // POST keeps long id lists out of the URL (NCBI recommends POST above ~200 ids).
        yield await call("efetch.fcgi", { ...common, id: ids }, "POST");
      }
    } else {
      for (let start = 0; start < source.count; start += cfg.batchSize) {
        yield await call("efetch.fcgi", { ...common, WebEnv: source.webEnv, query_key: source.queryKey, retstart: String(start), retmax: String(cfg.batchSize) });
      }
    }
  }

  return {
    config: cfg,
    get requestCount() {
      return transport.requestCount();
    },
    async esearch(p) {
      return parseEsearchResponse(await call("esearch.fcgi", esearchQuery(p)));
    },
    async epost(ids, db = "pubmed") {
      return parseEpostResponse(await call("epost.fcgi", { db, id: ids.join(",") }, "POST"));
    },
    efetchXml,
    async idconv(pmids) {
      const out = new Map<string, IdconvRecord>();
      for (let i = 0; i < pmids.length; i += IDCONV_MAX_IDS) {
        const params = { ids: pmids.slice(i, i + IDCONV_MAX_IDS).join(","), idtype: "pmid", format: "json" };
        const text = await call(cfg.idconvUrl, params, "GET", { apiKey: false, label: "idconv" });
        addIdconvRecords(text, redact(`${cfg.idconvUrl}?${new URLSearchParams(params)}`), out);
      }
      return pmids.map((p) => out.get(p) ?? { pmid: p, pmcid: null, doi: null, error: "not returned by the ID converter" });
    },
    async *efetchPmc(pmcids) {
      for (let i = 0; i < pmcids.length; i += cfg.batchSize) {
        const ids = pmcids.slice(i, i + cfg.batchSize).map((id) => id.replace(/^PMC/i, ""));
        yield await call("efetch.fcgi", { db: "pmc", retmode: "xml", id: ids.join(",") }, "POST");
      }
    },
    async ecitmatch(citations) {
      const found = new Map<string, string>();
      for (let i = 0; i < citations.length; i += cfg.batchSize) {
        const text = await call("ecitmatch.cgi", { db: "pubmed", retmode: "xml", bdata: ecitmatchBdata(citations.slice(i, i + cfg.batchSize)) });
        addEcitmatchMatches(text, found);
      }
      return found;
    },
    async *fetchRecords(source, onWarning) {
      let batch = 0;
      for await (const xml of efetchXml(source)) {
        batch++;
        for (const r of parsePubmedXmlString(xml, { source: `efetch batch ${batch}`, onWarning })) yield r;
      }
    },
  };
}
