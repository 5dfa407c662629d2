/**
 * A fake NCBI E-utilities server on 127.0.0.1 backed by an index of PubMed XML records, for tests
 * that must not reach the network: esearch (term filters `hasabstract`, publication-date range,
 * retstart/retmax, usehistory) and efetch (by POSTed ids or by WebEnv/query_key + retstart/retmax).
 *
 * It enforces NCBI's retrieval cap like PubMed does: `count` is always the full count, but ids
 * past position `cap` are never served (esearch answers an ERROR when retstart ≥ cap and cuts the
 * list at the cap; efetch from history serves nothing past it). A client that ignores the cap loses
 * records, which the tests detect.
 *
 * Records are written as PubMed XML by {@link pubmedArticleXml} (our own minimal `PubmedArticle`
 * shape, parsed by the project's real parser) from text the tests give: bundled PubMed XML records
 * (re-dated) or short abstracts the tests write themselves.
 *
 * PMC side (opts `pmc`, for `datasets build-medmeta`): the PMC ID converter at `idconvUrl`
 * (`format=json`, ≤ 200 ids else HTTP 400, records shaped like NCBI's: `requested-id`, `pmcid`,
 * numeric `pmid`, `doi`, or `status: "error"` + `errmsg`), efetch `db=pmc` returning a
 * `<pmc-articleset>` of the JATS `<article>`s the test wrote, ecitmatch answering from a table of
 * citations, and esearch field searches (`…[doi]`, `…[ti]`) answered from `terms`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { dayNumber } from "../../corpus/eutils-windows.ts";

/** One record in the fake PubMed. */
export interface FakePubmedEntry {
  pmid: string;
  /** Publication date "YYYY/MM/DD" (what date windows filter on). */
  date: string;
  title: string;
  /** Abstract segments; empty = a record without abstract. */
  abstract: { label?: string; text: string }[];
  /** MeSH headings (a review's topic); `major` marks `MajorTopicYN="Y"`. */
  mesh?: { name: string; major?: boolean }[];
  /** Journal title (default "Fake Journal"). */
  journal?: string;
}

/** The PMC side of the fake (see the file header). */
export interface FakePmcOptions {
  /** PMID → PMCID ("PMC…"); a PMID not listed is answered with `errmsg` "Identifier not found in PMC". */
  pmcids: Record<string, string>;
  /** PMCID ("PMC…") → the JATS `<article>…</article>` efetch db=pmc serves. */
  articles: Record<string, string>;
  /** ecitmatch: "journal|year|volume|first page|author" (lower case, as sent) → PMID. */
  citations?: Record<string, string>;
  /** Field searches: exact esearch term (e.g. `10.1/x[doi]`, `"Some title"[ti]`) → PMIDs; other field searches find nothing. */
  terms?: Record<string, string[]>;
  /** PMCIDs whose efetch answers HTTP 500 (a failing request). */
  failing?: string[];
}

/** A request the fake received. */
export interface FakeEutilsRequest {
  endpoint: string;
  method: string;
  params: Record<string, string>;
}

/** A running fake; `url` is the E-utilities base URL (ends in `/`). */
export interface FakeEutilsServer {
  url: string;
  /** The PMC ID converter's URL on the fake. */
  idconvUrl: string;
  requests: FakeEutilsRequest[];
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One `<PubmedArticle>` for an entry (PMID, title, date, English, abstract segments). */
export function pubmedArticleXml(e: FakePubmedEntry): string {
  const [y, m, d] = e.date.split("/");
  const abs = e.abstract.length ? `<Abstract>${e.abstract.map((s) => `<AbstractText${s.label ? ` Label="${esc(s.label)}"` : ""}>${esc(s.text)}</AbstractText>`).join("")}</Abstract>` : "";
  return (
    `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">${e.pmid}</PMID>` +
    `<Article PubModel="Print"><Journal><JournalIssue CitedMedium="Print"><PubDate><Year>${y}</Year><Month>${m}</Month><Day>${d}</Day></PubDate></JournalIssue>` +
    `<Title>${esc(e.journal ?? "Fake Journal")}</Title><ISOAbbreviation>Fake J</ISOAbbreviation></Journal><ArticleTitle>${esc(e.title)}</ArticleTitle>${abs}` +
    `<Language>eng</Language><PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType></PublicationTypeList></Article>` +
    (e.mesh?.length
      ? `<MeshHeadingList>${e.mesh.map((m) => `<MeshHeading><DescriptorName UI="D000000" MajorTopicYN="${m.major ? "Y" : "N"}">${esc(m.name)}</DescriptorName></MeshHeading>`).join("")}</MeshHeadingList>`
      : "") +
    `</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">${e.pmid}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`
  );
}

/**
 * Start the fake on 127.0.0.1 (a free port).
 * @param entries the fake PubMed (ids unique).
 * @param opts `cap`: records per result set it serves (NCBI: 10,000).
 */
export function startFakeEutils(entries: readonly FakePubmedEntry[], opts: { cap?: number; pmc?: FakePmcOptions } = {}): Promise<FakeEutilsServer> {
  const cap = opts.cap ?? 10_000;
  const byId = new Map(entries.map((e) => [e.pmid, e]));
  const dayOf = new Map(entries.map((e) => [e.pmid, dayNumber(e.date)]));
  // PubMed lists newest first by default; here: PMID descending (stable, like a real index).
  const ordered = [...entries].sort((a, b) => Number(b.pmid) - Number(a.pmid));
  const histories = new Map<string, string[]>();
  const requests: FakeEutilsRequest[] = [];

  const search = (p: Record<string, string>): string[] => {
    if (opts.pmc && (p.term ?? "").includes("[")) return opts.pmc.terms?.[p.term] ?? [];
    const term = (p.term ?? "").toLowerCase();
    const lo = p.mindate ? dayNumber(p.mindate) : -Infinity;
    const hi = p.maxdate ? dayNumber(p.maxdate, true) : Infinity;
    return ordered
      .filter((e) => (term.includes("hasabstract") ? e.abstract.length > 0 : true))
      .filter((e) => dayOf.get(e.pmid)! >= lo && dayOf.get(e.pmid)! <= hi)
      .map((e) => e.pmid);
  };
  const articleSet = (ids: string[]) => `<?xml version="1.0" ?>\n<PubmedArticleSet>\n${ids.flatMap((id) => (byId.has(id) ? [pubmedArticleXml(byId.get(id)!)] : [])).join("\n")}\n</PubmedArticleSet>\n`;

  const server = createServer(async (req: IncomingMessage, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    let body = "";
    for await (const c of req) body += c;
    const params = Object.fromEntries(new URLSearchParams(req.method === "POST" ? body : u.search));
    const endpoint = u.pathname.split("/").pop() ?? "";
    requests.push({ endpoint, method: req.method ?? "", params });
    if (opts.pmc && u.pathname.includes("/idconv/")) {
      const ids = (params.ids ?? "").split(",").filter(Boolean);
      if (ids.length > 200 || params.format !== "json") {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "error", message: ids.length > 200 ? "too many ids" : "format=json expected" }));
        return;
      }
      const records = ids.map((id) => {
        const pmcid = opts.pmc!.pmcids[id];
        return pmcid ? { "requested-id": id, pmcid, pmid: Number(id), doi: `10.9999/fake.${id}` } : { "requested-id": id, status: "error", errmsg: "Identifier not found in PMC" };
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", responseDate: "2026-12-01 00:00:00", request: u.search, records }));
      return;
    }
    if (opts.pmc && endpoint === "efetch.fcgi" && params.db === "pmc") {
      const ids = (params.id ?? "")
        .split(",")
        .filter(Boolean)
        .map((id) => (id.startsWith("PMC") ? id : `PMC${id}`));
      if (ids.some((id) => opts.pmc!.failing?.includes(id))) {
        res.writeHead(500);
        res.end("fake failure");
        return;
      }
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" "https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">\n<pmc-articleset>${ids.map((id) => opts.pmc!.articles[id] ?? "").join("\n")}</pmc-articleset>\n`,
      );
      return;
    }
    if (opts.pmc && endpoint === "ecitmatch.cgi") {
      const lines = (params.bdata ?? "").split("\r").filter(Boolean);
      const answer = lines.map((l) => {
        const f = l.split("|");
        return `${l}${opts.pmc!.citations?.[f.slice(0, 5).join("|").toLowerCase()] ?? "NOT_FOUND"}`;
      });
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`${answer.join("\n")}\n`);
      return;
    }
    if (endpoint === "esearch.fcgi") {
      const ids = search(params);
      const retstart = Number(params.retstart ?? 0);
      const retmax = Number(params.retmax ?? 20);
      const result: Record<string, unknown> = { count: String(ids.length), retstart: String(retstart), retmax: String(retmax) };
      if (retstart >= cap && retmax > 0)
        result.ERROR = `Search Backend failed: 'retstart' cannot be larger than ${cap - 1}. For PubMed, ESearch can only retrieve the first ${cap} records matching the query.`;
      result.idlist = ids.slice(retstart, Math.min(retstart + retmax, cap));
      if (params.usehistory === "y") {
        const webEnv = `FAKE_WE_${histories.size + 1}`;
        histories.set(webEnv, ids);
        result.webenv = webEnv;
        result.querykey = "1";
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ esearchresult: result }));
      return;
    }
    if (endpoint === "efetch.fcgi") {
      let ids: string[];
      if (params.WebEnv) {
        const all = histories.get(params.WebEnv);
        if (!all) {
          res.writeHead(400);
          res.end("unknown WebEnv");
          return;
        }
        const start = Number(params.retstart ?? 0);
        ids = all.slice(start, Math.min(start + Number(params.retmax ?? 20), cap));
      } else ids = (params.id ?? "").split(",").filter(Boolean);
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(articleSet(ids));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/entrez/eutils/`,
        idconvUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools/idconv/api/v1/articles/`,
        requests,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}
