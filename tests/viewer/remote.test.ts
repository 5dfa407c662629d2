/**
 * Raters on other machines: --public-url (Host check and links), X-Forwarded-* only from a
 * trusted proxy, HTTPS-only rating links behind an HTTPS public URL, tokens never in the access
 * log, a per-token save limit. The server listens on 127.0.0.2, standing in for another machine.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { request, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { annotateServeCommand } from "../../experiments/cli/viewer-commands.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { allowedHosts, hostRefusal, isLoopback, redactPath, resolveRemote, SaveLimiter } from "../../viewer/study/remote.ts";
import { createStudy, type Study } from "../../viewer/study/study.ts";
import { makeStudyRun } from "./study-fixtures.ts";

const DIM = "medmeta-semantic-equivalence.semantic_equivalence";

/** One request with chosen Host / headers from a chosen local address. */
function call(
  url: string,
  o: { method?: string; host?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<{ status: number; body: string; headers: IncomingMessage["headers"] }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: o.method ?? "GET",
        localAddress: o.from,
        headers: { host: o.host ?? u.host, "content-type": "application/json", ...o.headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => ok({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", fail);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

const fakeReq = (headers: Record<string, string>, remoteAddress = "127.0.0.1") => ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe("remote options (units)", () => {
  it("checks --public-url and the TLS pair by name", () => {
    expect(() => resolveRemote({ publicUrl: "ratings.example.org" })).toThrow('--public-url "ratings.example.org" is not a URL');
    expect(() => resolveRemote({ publicUrl: "ftp://x.org" })).toThrow("--public-url must start with https:// or http://");
    expect(() => resolveRemote({ publicUrl: "https://x.org/study?t=1" })).toThrow("no path, query or credentials");
    expect(() => resolveRemote({ tlsCert: "a.pem" })).toThrow("--tls-cert and --tls-key go together");
    expect(() => resolveRemote({ tlsCert: "/nonexistent/c.pem", tlsKey: "/nonexistent/k.pem" })).toThrow("--tls-cert /nonexistent/c.pem: ENOENT");
    expect(resolveRemote({ publicUrl: "https://Ratings.Example.org/" }).publicUrl?.origin).toBe("https://ratings.example.org");
  });

  it("Host check: public name, the specific listen address, loopback names on loopback; X-Forwarded-Host only from a trusted proxy", () => {
    expect(isLoopback("127.0.0.2") && isLoopback("[::1]") && isLoopback("localhost") && !isLoopback("10.0.0.2")).toBe(true);
    const pub = resolveRemote({ publicUrl: "https://ratings.example.org", trustProxy: ["127.0.0.1"] });
    const allowed = allowedHosts(pub, "127.0.0.2")!;
    expect([...allowed].sort()).toEqual(["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "ratings.example.org"]);
    expect([...allowedHosts(resolveRemote({ publicUrl: "https://r.example.org" }), "0.0.0.0")!].sort()).toEqual(["127.0.0.1", "::1", "[::1]", "localhost", "r.example.org"]);
    expect(allowedHosts(resolveRemote({}), "0.0.0.0")).toBeNull(); // as before: no check without --public-url
    expect(hostRefusal(pub, allowed, fakeReq({ host: "Ratings.Example.org" }))).toBeNull();
    expect(hostRefusal(pub, allowed, fakeReq({ host: "evil.example:80" }))).toContain("requests must be addressed to");
    // a trusted proxy forwards the public name while addressing the backend by its own
    expect(hostRefusal(pub, allowed, fakeReq({ host: "evil.example", "x-forwarded-host": "ratings.example.org" }, "127.0.0.1"))).toBeNull();
    // the same header from anyone else is ignored
    expect(hostRefusal(pub, allowed, fakeReq({ host: "evil.example", "x-forwarded-host": "ratings.example.org" }, "127.0.0.9"))).not.toBeNull();
  });

  it("redacts tokens in paths and limits saves per key with a token bucket", () => {
    const ids: Record<string, string> = { "tok-A": "rater1" };
    expect(redactPath("/rate/tok-A", (t) => ids[t] ?? null)).toBe("/rate/<rater1>");
    expect(redactPath("/api/rate/tok-A/3", (t) => ids[t] ?? null)).toBe("/api/rate/<rater1>/3");
    expect(redactPath("/api/rate/guess", (t) => ids[t] ?? null)).toBe("/api/rate/<unknown>");
    expect(redactPath("/api/meta", () => null)).toBe("/api/meta");
    let now = 0;
    const lim = new SaveLimiter(3, () => now);
    expect([lim.take("a"), lim.take("a"), lim.take("a")]).toEqual([0, 0, 0]);
    expect(lim.take("a")).toBe(20); // 3 per minute: one more after 20 s
    expect(lim.take("b")).toBe(0); // per key
    now = 19_000;
    expect(lim.take("a")).toBe(1); // 19 s refilled 0.95 of a save: the rest takes 1 s
    now = 40_000;
    expect(lim.take("a")).toBe(0);
  });
});

describe("annotate serve on 127.0.0.2 with --public-url", () => {
  let srv: ViewerServer | null = null;
  let proxy: import("node:http").Server | null = null;
  afterEach(async () => {
    await srv?.close();
    srv = null;
    await new Promise<void>((ok) => (proxy ? proxy.close(() => ok()) : ok()));
    proxy = null;
  });
  const study = (): { dir: string; study: Study } => {
    const dir = join(mkdtempSync(join(tmpdir(), "medsynth-remote-")), "s");
    return { dir, study: createStudy(makeStudyRun(), { rubric: "medmeta", raters: 2, items: 2, seed: 1, out: dir }).study };
  };

  it("prints links on the public URL, refuses other host names, keeps tokens out of the log, and limits saves per token", async () => {
    const { dir, study: st } = study();
    const lines: string[] = [];
    const log: string[] = [];
    srv = await annotateServeCommand(dir, { host: "127.0.0.2", port: 0, publicUrl: "http://ratings.test:8766", saveLimit: 2, accessLog: (l) => log.push(l) }, (l) => lines.push(l));
    expect(lines[0]).toBe(`rater1: http://ratings.test:8766/rate/${st.raters[0].token}`);
    expect(lines[1]).toBe(`rater2: http://ratings.test:8766/rate/${st.raters[1].token}`);
    expect(lines.join("\n")).toContain("warning: the links travel in plain HTTP");
    const tok = st.raters[0].token;
    // addressed to the public name (as a rater's browser does), to the listen address, to a stranger
    expect((await call(`${srv.url}/rate/${tok}`, { host: "ratings.test:8766" })).status).toBe(200);
    expect((await call(`${srv.url}/api/rate/${tok}`, { host: new URL(srv.url).host })).status).toBe(200);
    const evil = await call(`${srv.url}/api/rate/${tok}`, { host: "evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.body).toContain("ratings.test");
    // X-Forwarded-Host from an untrusted peer does not pass the check
    expect((await call(`${srv.url}/api/rate/${tok}`, { host: "evil.example", headers: { "x-forwarded-host": "ratings.test" } })).status).toBe(403);
    // per-token save limit: 2 per minute
    const save = (n: number, t = tok) => call(`${srv!.url}/api/rate/${t}/${n}`, { method: "POST", host: "ratings.test:8766", body: { scores: { [DIM]: 3 }, revision: 0 } });
    expect((await save(1)).status).toBe(200);
    expect((await save(2)).status).toBe(200);
    const third = await save(3);
    expect(third.status).toBe(429);
    expect(third.headers["retry-after"]).toBe("30");
    expect(JSON.parse(third.body)).toMatchObject({ retryAfterS: 30 });
    expect((await save(1, st.raters[1].token)).status).toBe(200); // another rater's link has its own budget
    await new Promise((r) => setTimeout(r, 50));
    expect(log.length).toBeGreaterThanOrEqual(8);
    for (const r of st.raters) expect(log.join("\n")).not.toContain(r.token);
    expect(log.some((l) => / 127\.0\.0\.1 POST \/api\/rate\/<rater1>\/3 429 /.test(l))).toBe(true);
    expect(log.some((l) => l.includes("GET /rate/<rater1> 200"))).toBe(true);
  });

  it("writes the links to a 0600 file and prints no token", async () => {
    const { dir, study: st } = study();
    const lines: string[] = [];
    const file = join(dir, "links.txt");
    srv = await annotateServeCommand(dir, { host: "127.0.0.2", port: 0, publicUrl: "https://ratings.test", linksFile: file }, (l) => lines.push(l));
    expect(readFileSync(file, "utf8")).toBe(st.raters.map((r) => `${r.id}: https://ratings.test/rate/${r.token}\n`).join(""));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const r of st.raters) expect(lines.join("\n")).not.toContain(r.token);
    expect(lines[0]).toBe(`2 rater links written to ${file} (readable by you only)`);
  });

  it("behind a reverse proxy: X-Forwarded-* believed only from --trust-proxy, rating links only over HTTPS", async () => {
    const { dir, study: st } = study();
    const log: string[] = [];
    srv = await startViewerServer({ study: dir, host: "127.0.0.2", port: 0, publicUrl: "https://ratings.test", trustProxy: ["127.0.0.1"], log: (l) => log.push(l) });
    const tok = st.raters[0].token;
    const via = (proto: string) =>
      call(`${srv!.url}/api/rate/${tok}`, {
        from: "127.0.0.1",
        host: "backend.internal",
        headers: { "x-forwarded-host": "ratings.test", "x-forwarded-proto": proto, "x-forwarded-for": "203.0.113.7" },
      });
    expect((await via("https")).status).toBe(200);
    const plain = await via("http");
    expect(plain.status).toBe(403);
    expect(plain.body).toContain("HTTPS only: use https://ratings.test/rate/");
    // the same headers from a peer that is not the proxy: ignored (Host check fails)
    const spoof = await call(`${srv.url}/api/rate/${tok}`, { from: "127.0.0.3", host: "backend.internal", headers: { "x-forwarded-host": "ratings.test", "x-forwarded-proto": "https" } });
    expect(spoof.status).toBe(403);
    await new Promise((r) => setTimeout(r, 50));
    // the client address of a proxied request is the forwarded one; untrusted peers are logged as themselves
    expect(log[0]).toMatch(/ 203\.0\.113\.7 GET \/api\/rate\/<rater1> 200 /);
    expect(log[2]).toMatch(/ 127\.0\.0\.3 GET \/api\/rate\/<rater1> 403 /);
    expect(log.join("\n")).not.toContain(tok);
  });
});
