import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { createEutilsClient, EutilsError, parseRetryAfter } from "../../corpus/eutils.ts";

interface Seen {
  path: string;
  method: string;
  params: Record<string, string>;
  at: number;
}

const PUBMED1 = readFileSync(datasetFileSync("pubmed-xml/biopython/pubmed1.xml"), "utf8");

/** Fake E-utilities on 127.0.0.1: records every request; scripted failures by path. */
function startFake(): Promise<{ server: Server; url: string; seen: Seen[]; failures: Map<string, { status: number; retryAfter?: string }[]> }> {
  const seen: Seen[] = [];
  const failures = new Map<string, { status: number; retryAfter?: string }[]>();
  const server = createServer(async (req: IncomingMessage, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    let body = "";
    for await (const c of req) body += c;
    const params = Object.fromEntries(new URLSearchParams(req.method === "POST" ? body : u.search));
    seen.push({ path: u.pathname, method: req.method ?? "", params, at: Date.now() });
    const f = failures.get(u.pathname)?.shift();
    if (f) {
      res.writeHead(f.status, f.retryAfter ? { "retry-after": f.retryAfter } : {});
      res.end("slow down");
      return;
    }
    if (u.pathname.endsWith("/esearch.fcgi")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ esearchresult: { count: "3", idlist: ["12091962", "9997", "1"], webenv: "WE1", querykey: "1" } }));
    } else if (u.pathname.endsWith("/epost.fcgi")) {
      res.writeHead(200, { "content-type": "text/xml" });
      res.end("<ePostResult><QueryKey>7</QueryKey><WebEnv>WE2</WebEnv></ePostResult>");
    } else if (u.pathname.endsWith("/efetch.fcgi")) {
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(PUBMED1);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/eutils/`, seen, failures })));
}

describe("E-utilities client (local fake server)", () => {
  let fake: Awaited<ReturnType<typeof startFake>>;
  beforeAll(async () => {
    fake = await startFake();
  });
  afterAll(() => fake.server.close());

  it("esearch sends term, hasstructuredabstract, date range, history and api_key", async () => {
    fake.seen.length = 0;
    const client = createEutilsClient({ baseUrl: fake.url, apiKey: "SECRET", requestsPerSecond: 10, email: "a@b.c" });
    const r = await client.esearch({ term: "asthma", hasStructuredAbstract: true, minDate: "2020/01/01", maxDate: "2020/12/31", usehistory: true, retmax: 100 });
    expect(r).toEqual({ count: 3, ids: ["12091962", "9997", "1"], webEnv: "WE1", queryKey: "1" });
    expect(fake.seen.length).toBe(1);
    expect(fake.seen[0].path).toBe("/eutils/esearch.fcgi");
    expect(fake.seen[0].params).toEqual({
      db: "pubmed",
      term: "(asthma) AND hasstructuredabstract",
      retmode: "json",
      retmax: "100",
      retstart: "0",
      mindate: "2020/01/01",
      maxdate: "2020/12/31",
      datetype: "pdat",
      usehistory: "y",
      tool: "medsynth",
      email: "a@b.c",
      api_key: "SECRET",
    });
  });

  it("epost + batched efetch by ids and by history, parsing the XML", async () => {
    fake.seen.length = 0;
    const client = createEutilsClient({ baseUrl: fake.url, batchSize: 2, requestsPerSecond: 10 });
    expect(await client.epost(["1", "2", "3"])).toEqual({ webEnv: "WE2", queryKey: "7" });
    expect(fake.seen[0].method).toBe("POST");
    expect(fake.seen[0].params.id).toBe("1,2,3");
    expect(fake.seen[0].params.api_key).toBeUndefined();
    const recs = [];
    for await (const r of client.fetchRecords({ ids: ["1", "2", "3", "4", "5"] })) recs.push(r.pmid);
    expect(recs).toEqual(["12091962", "9997", "12091962", "9997", "12091962", "9997"]); // 3 batches × the 2-record fixture
    expect(fake.seen.slice(1).map((s) => s.params.id)).toEqual(["1,2", "3,4", "5"]);
    fake.seen.length = 0;
    let batches = 0;
    for await (const _xml of client.efetchXml({ webEnv: "WE2", queryKey: "7", count: 5 })) batches++;
    expect(batches).toBe(3);
    expect(fake.seen.map((s) => [s.params.WebEnv, s.params.query_key, s.params.retstart, s.params.retmax])).toEqual([
      ["WE2", "7", "0", "2"],
      ["WE2", "7", "2", "2"],
      ["WE2", "7", "4", "2"],
    ]);
  });

  it("spaces requests at 3/s without a key", async () => {
    fake.seen.length = 0;
    const client = createEutilsClient({ baseUrl: fake.url });
    expect(client.config.apiKey).toBeNull();
    // Spacing is measured where the client sends (its fetch calls), not where the fake server
    // receives: on a loaded machine the server's event loop can take queued requests closer
    // together than they were sent.
    const sentAt: number[] = [];
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      sentAt.push(performance.now());
      return realFetch(input, init);
    });
    try {
      await Promise.all([client.epost(["1"]), client.epost(["2"]), client.epost(["3"])]);
    } finally {
      spy.mockRestore();
    }
    expect(sentAt).toHaveLength(3);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(320); // 1000/3 ms, minus timer slack
  });

  it("retries a 429 after its Retry-After, and a 503 with backoff", async () => {
    fake.seen.length = 0;
    fake.failures.set("/eutils/esearch.fcgi", [{ status: 429, retryAfter: "1" }, { status: 503 }]);
    const client = createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10, backoffMs: 50 });
    const r = await client.esearch({ term: "x" });
    expect(r.count).toBe(3);
    expect(fake.seen.length).toBe(3);
    expect(fake.seen[1].at - fake.seen[0].at).toBeGreaterThanOrEqual(950);
    expect(fake.seen[2].at - fake.seen[1].at).toBeGreaterThanOrEqual(45);
    expect(client.requestCount).toBe(3);
  });

  it("gives up after maxRetries with an error that hides the API key; 4xx is not retried", async () => {
    fake.seen.length = 0;
    fake.failures.set("/eutils/esearch.fcgi", [{ status: 500 }, { status: 500 }]);
    const client = createEutilsClient({ baseUrl: fake.url, apiKey: "SECRET", maxRetries: 1, backoffMs: 1 });
    const err = await client.esearch({ term: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(EutilsError);
    expect(err.message).toContain("failed after 2 attempts: HTTP 500");
    expect(err.message).not.toContain("SECRET");
    fake.failures.set("/eutils/esearch.fcgi", [{ status: 400 }]);
    fake.seen.length = 0;
    const err2 = await client.esearch({ term: "x" }).catch((e) => e);
    expect(err2.status).toBe(400);
    expect(fake.seen.length).toBe(1);
    expect(() => createEutilsClient({ baseUrl: fake.url, bogus: 1 } as never)).toThrow();
  });

  it("parses Retry-After forms", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:05 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(5000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
  });
});
