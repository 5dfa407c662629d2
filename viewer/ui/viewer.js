// The results explorer: cell table (filters, sort, search, paging on the server), item page
// (outputs side by side with evidence, Negated-RAG diff, P-CoT steps, judge verdicts), compare
// mode and export. State lives in the URL hash so a view can be reloaded or shared.
import { h, setChildren, getJson, fmt, fmtTokens, wordDiff } from "/static/common.js";

const main = document.getElementById("main");
let meta = null;
/** The column whose sort button was pressed: focus returns to it once the table is redrawn. */
let refocusSort = null;

const FILTERS = ["run", "dataset", "model", "workflow", "params", "status", "judge"];

function hashParams() {
  return new URLSearchParams(location.hash.replace(/^#/, "").replace(/^[a-z]+\??/, ""));
}
function route() {
  const m = /^#([a-z]+)/.exec(location.hash);
  return m ? m[1] : "cells";
}

async function start() {
  meta = await getJson("/api/meta");
  const runs = document.getElementById("runs");
  setChildren(
    runs,
    meta.runs.map((r) =>
      h(
        "div",
        { class: "run", "data-run": r.index },
        h("b", {}, `run ${r.index}: ${r.name}`),
        ` — ${r.cells} cells`,
        r.malformedLines
          ? h(
              "span",
              { class: "warn", id: `malformed-${r.index}` },
              ` · ${r.malformedLines} malformed line(s) skipped (lines ${r.malformedLineNumbers.join(", ")}${r.malformedLines > r.malformedLineNumbers.length ? ", …" : ""})`,
            )
          : null,
        r.truncatedTail ? h("span", { class: "warn" }, " · torn last line left out") : null,
      ),
    ),
  );
  if (meta.runs.length < 2) document.getElementById("nav-compare").remove();
  window.addEventListener("hashchange", render);
  await render();
}

async function render() {
  try {
    const r = route();
    if (r === "item") await renderItem(hashParams().get("id"));
    else if (r === "compare") await renderCompare(hashParams());
    else await renderCells(hashParams());
  } catch (err) {
    setChildren(main, h("p", { class: "error" }, `Error: ${err.message}`));
  }
}

function setHash(kind, params) {
  const s = params.toString();
  location.hash = `${kind}${s ? "?" + s : ""}`;
}

// ---------- cell table ----------
async function renderCells(params) {
  const q = new URLSearchParams(params);
  if (!q.get("size")) q.set("size", "50");
  const page = await getJson(`/api/cells?${q}`);
  const update = (k, v) => {
    const p = new URLSearchParams(params);
    if (v === "" || v === null) p.delete(k);
    else p.set(k, v);
    if (k !== "page") p.delete("page");
    setHash("cells", p);
  };
  const select = (name) =>
    h(
      "label",
      {},
      name,
      " ",
      h(
        "select",
        { id: `f-${name}`, onchange: (e) => update(name, e.target.value) },
        h("option", { value: "" }, "all"),
        (name === "run" ? meta.runs.map((r) => [String(r.index), r.name]) : meta.facets[name].map((v) => [v, v === "" ? "(none)" : v])).map(([v, label]) =>
          h("option", { value: v, selected: params.get(name) === v ? "selected" : null }, label),
        ),
      ),
    );
  const search = h("input", { id: "f-q", type: "search", placeholder: "search outputs", value: params.get("q") ?? "" });
  search.addEventListener("change", (e) => update("q", e.target.value));
  const exportQ = new URLSearchParams(params);
  exportQ.delete("page");
  const cols = [
    ["itemId", "item"],
    ["dataset", "dataset"],
    ["model", "model"],
    ["workflow", "workflow"],
    ["params", "params"],
    ["status", "status"],
    ["judge", "judge"],
    ["inputTokens", "in tok"],
    ["outputTokens", "out tok"],
    ["latencyMs", "latency ms"],
    ["costUsd", "cost $"],
    ...meta.scoreColumns.map((c) => [c, c.replace(/^(panel|metric):/, "")]),
  ];
  const sort = params.get("sort");
  const dir = params.get("dir") ?? "asc";
  const header = h(
    "tr",
    {},
    cols.map(([c, label]) =>
      // a button inside the header (keyboard and screen readers reach it); aria-sort on the sorted column
      h(
        "th",
        { class: "sortable", "data-col": c, scope: "col", "aria-sort": sort === c ? (dir === "asc" ? "ascending" : "descending") : null },
        h(
          "button",
          {
            type: "button",
            class: "sort",
            title: `sort by ${c}`,
            onclick: () => {
              refocusSort = c;
              const p = new URLSearchParams(params);
              p.set("sort", c);
              p.set("dir", sort === c && dir === "asc" ? "desc" : "asc");
              p.delete("page");
              setHash("cells", p);
            },
          },
          label,
          sort === c ? h("span", { "aria-hidden": "true" }, dir === "asc" ? " ▲" : " ▼") : "",
        ),
      ),
    ),
  );
  const body = page.rows.map((r) =>
    h(
      "tr",
      { class: `status-${r.status}`, "data-key": r.key },
      h("td", {}, h("a", { href: `#item?id=${encodeURIComponent(r.itemId)}`, class: "item-link" }, r.itemId)),
      h("td", {}, r.dataset),
      h("td", {}, r.model),
      h("td", {}, r.workflow),
      h("td", {}, r.params),
      h("td", {}, r.status),
      h("td", {}, r.judge),
      h("td", { class: "num" }, fmtTokens(r.inputTokens, r.unknownUsageCalls)),
      h("td", { class: "num" }, fmtTokens(r.outputTokens, r.unknownUsageCalls)),
      h("td", { class: "num" }, fmt(r.latencyMs, 0)),
      h("td", { class: "num" }, r.costUsd === null ? "–" : r.costUsd.toFixed(5)),
      meta.scoreColumns.map((c) => h("td", { class: "num" }, fmt(r.scores[c]))),
    ),
  );
  const pages = Math.max(1, Math.ceil(page.total / page.size));
  setChildren(
    main,
    h(
      "section",
      { class: "filters" },
      FILTERS.map(select),
      h("label", {}, "search ", search),
      h("a", { id: "export-csv", href: `/api/export.csv?${exportQ}`, download: "cells.csv" }, "Export CSV"),
      " ",
      h("a", { id: "export-jsonl", href: `/api/export.jsonl?${exportQ}`, download: "cells.jsonl" }, "JSONL"),
    ),
    h("p", { id: "count" }, `${page.total} of ${meta.totalCells} cells · page ${page.page + 1} of ${pages}`),
    h("div", { class: "table-wrap" }, h("table", { id: "cells" }, h("thead", {}, header), h("tbody", {}, body))),
    h(
      "p",
      { class: "pager" },
      h("button", { id: "prev", disabled: page.page === 0 ? "disabled" : null, onclick: () => update("page", String(page.page - 1)) }, "‹ previous"),
      " ",
      h("button", { id: "next", disabled: page.page + 1 >= pages ? "disabled" : null, onclick: () => update("page", String(page.page + 1)) }, "next ›"),
    ),
  );
  if (refocusSort) {
    main.querySelector(`th[data-col="${CSS.escape(refocusSort)}"] button`)?.focus();
    refocusSort = null;
  }
}

// ---------- item page ----------
function evidenceTable(ev, queries) {
  if (!ev.length) return h("p", { class: "muted" }, "no evidence recorded");
  return h(
    "table",
    { class: "evidence" },
    h("thead", {}, h("tr", {}, h("th", {}, "abstract"), h("th", {}, "rank"), h("th", {}, "score"), h("th", {}, "found by"), h("th", {}, "sentences used"))),
    h(
      "tbody",
      {},
      ev.map((e) =>
        h(
          "tr",
          { class: e.golden ? "golden" : null },
          h("td", {}, e.id, e.golden ? h("span", { class: "badge golden-badge", title: "golden evidence" }, "golden") : null),
          h("td", { class: "num" }, fmt(e.rank)),
          h("td", { class: "num" }, fmt(e.score)),
          h(
            "td",
            {},
            e.queries.map((q) => {
              const qi = queries.indexOf(q.query);
              return h("div", { title: q.query }, qi >= 0 ? `q${qi + 1} ` : h("q", {}, q.query), `#${q.rank} (${fmt(q.score)})`);
            }),
          ),
          h(
            "td",
            {},
            e.sentences.map((s) => h("div", { class: "sentence" }, s)),
          ),
        ),
      ),
    ),
  );
}

function negationDiff(neg) {
  if (!neg) return null;
  if (!neg.length) return h("section", { class: "negation" }, h("h4", {}, "Negated evidence"), h("p", { class: "muted" }, "no sentence changed"));
  return h(
    "section",
    { class: "negation" },
    h("h4", {}, "Negated evidence"),
    neg.map((n) =>
      h(
        "div",
        { class: "neg-doc" },
        h("div", { class: "muted" }, `abstract ${n.id}`),
        n.changed.map((c) =>
          h(
            "div",
            { class: "diff" },
            h(
              "div",
              { class: "orig" },
              "− ",
              wordDiff(c.original, c.negated)
                .filter((s) => s.kind !== "ins")
                .map((s) => (s.kind === "del" ? h("del", {}, s.text) : s.text)),
            ),
            h(
              "div",
              { class: "neg" },
              "+ ",
              wordDiff(c.original, c.negated)
                .filter((s) => s.kind !== "del")
                .map((s) => (s.kind === "ins" ? h("ins", {}, s.text) : s.text)),
            ),
            h("div", { class: "muted" }, c.mode),
          ),
        ),
      ),
    ),
  );
}

function pcotView(p) {
  if (!p) return null;
  return h(
    "section",
    { class: "pcot" },
    h("h4", {}, "P-CoT"),
    h("div", {}, h("b", {}, "plan: "), typeof p.plan === "string" ? p.plan : JSON.stringify(p.plan)),
    p.questions.length
      ? h(
          "ol",
          {},
          p.questions.map((q) => h("li", {}, `round ${q.round}: `, q.question)),
        )
      : null,
    p.drafts.map((d, i) => h("details", {}, h("summary", {}, `draft ${i + 1} — self-evaluation ${fmt(p.scores[i])}`), h("div", { class: "text" }, d))),
    p.stopReason ? h("div", { class: "muted" }, `stopped: ${p.stopReason}`) : null,
  );
}

function judgesView(c) {
  if (!c.judges.length && !c.panel) return null;
  return h(
    "section",
    { class: "judges" },
    h("h4", {}, "Judges"),
    c.judges.map((j) =>
      h(
        "div",
        { class: `judge judge-${j.status}` },
        h("b", {}, `${j.judgeId} · ${j.rubricId}: `),
        Object.entries(j.scores).map(([k, v]) => `${k} ${fmt(v)} `),
        j.status !== "ok" ? h("span", { class: "warn" }, " missing") : null,
        j.rationale ? h("div", { class: "rationale" }, j.rationale) : null,
        j.raw ? h("div", {}, h("span", { class: "muted" }, "raw answer: "), h("pre", { class: "raw" }, j.raw)) : null,
        j.error ? h("div", { class: "warn" }, `reason: ${j.error}`) : null,
      ),
    ),
    c.panel
      ? h(
          "div",
          { class: "panel" },
          `panel (${c.panel.aggregation}): `,
          Object.entries(c.panel.scores).flatMap(([rub, dims]) => Object.entries(dims).map(([d, v]) => `${rub}.${d} ${fmt(v.value)} (${v.nPresent}/${v.nJudges}) `)),
        )
      : null,
  );
}

async function renderItem(id) {
  const v = await getJson(`/api/item?id=${encodeURIComponent(id ?? "")}`);
  const cards = v.cells.map((c) =>
    h(
      "article",
      { class: `cell status-${c.status}`, "data-workflow": c.workflow },
      h("h3", {}, `${c.workflow}${c.params ? " · " + c.params : ""}`),
      h("div", { class: "muted" }, `${c.model} · run ${c.run} · repeat ${c.repeat} · ${c.status}`),
      h(
        "div",
        { class: "muted" },
        `tokens ${fmtTokens(c.generator?.inputTokens, c.generator?.unknownUsageCalls)} in / ${fmtTokens(c.generator?.outputTokens, c.generator?.unknownUsageCalls)} out · ${fmt(c.generator?.latencyMs, 0)} ms${c.generator?.cached ? " · cached" : ""}`,
      ),
      c.truncated ? h("div", { class: "warn truncated" }, 'truncated: the answer hit the output limit (finish_reason "length") and was kept as marked') : null,
      c.output !== null ? h("div", { class: "output text" }, c.output) : h("div", { class: "warn" }, c.error ?? "no output"),
      Object.keys(c.metrics).length
        ? h(
            "div",
            { class: "metrics" },
            Object.entries(c.metrics).map(([k, val]) => h("span", { class: "metric" }, `${k} ${fmt(val)}`)),
          )
        : null,
      judgesView(c),
      c.queries.length
        ? h(
            "section",
            {},
            h("h4", {}, "Queries"),
            h(
              "ol",
              { class: "queries" },
              c.queries.map((q, i) => h("li", {}, h("b", {}, `q${i + 1} `), q)),
            ),
          )
        : null,
      h("section", {}, h("h4", {}, "Evidence"), evidenceTable(c.evidence, c.queries)),
      negationDiff(c.negation),
      pcotView(c.pcot),
    ),
  );
  setChildren(
    main,
    h(
      "p",
      {},
      h(
        "a",
        {
          href: "#cells",
          onclick: (e) => {
            e.preventDefault();
            history.back();
          },
        },
        "‹ back to the table",
      ),
    ),
    h("h2", { id: "item-title" }, v.question ?? v.itemId),
    h("div", { class: "muted" }, `${v.itemId} · ${v.dataset}`),
    h(
      "section",
      { class: "reference" },
      h("h4", {}, "Reference"),
      v.reference ? h("div", { class: "text" }, v.reference) : h("p", { class: "muted" }, "no reference text"),
      v.itemMeta.referenceAnswer ? h("div", {}, `reference answer: ${v.itemMeta.referenceAnswer}`) : null,
    ),
    v.goldenIds.length ? h("div", { class: "muted" }, `golden evidence: ${v.goldenIds.join(", ")}`) : null,
    h("div", { class: "cells-side" }, cards),
  );
}

// ---------- compare ----------
async function renderCompare(params) {
  const a = params.get("a") ?? "0";
  const b = params.get("b") ?? "1";
  const q = new URLSearchParams({ a, b, page: params.get("page") ?? "0", diff: params.get("diff") ?? "1" });
  const c = await getJson(`/api/compare?${q}`);
  const set = (k, v) => {
    const p = new URLSearchParams(params);
    p.set(k, v);
    if (k !== "page") p.delete("page");
    setHash("compare", p);
  };
  const runSel = (k, cur) =>
    h(
      "select",
      { id: `cmp-${k}`, onchange: (e) => set(k, e.target.value) },
      meta.runs.map((r) => h("option", { value: r.index, selected: String(r.index) === cur ? "selected" : null }, `${r.index}: ${r.name}`)),
    );
  const deltaCols = [...new Set(c.pairs.flatMap((p) => Object.keys(p.deltas)))].sort();
  setChildren(
    main,
    h(
      "section",
      { class: "filters" },
      "A ",
      runSel("a", a),
      " B ",
      runSel("b", b),
      h(
        "label",
        {},
        h("input", { type: "checkbox", id: "cmp-diff", checked: q.get("diff") === "1" ? "checked" : null, onchange: (e) => set("diff", e.target.checked ? "1" : "0") }),
        " only differing",
      ),
    ),
    h("p", { id: "cmp-counts" }, `${c.counts.matched} matched cells: ${c.counts.identical} identical, ${c.counts.differing} differ; ${c.counts.onlyA} only in A, ${c.counts.onlyB} only in B`),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { id: "compare" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["item", "model", "workflow", "params", "status A → B", "identical", "word difference", ...deltaCols.map((d) => `Δ ${d.replace(/^(panel|metric):/, "")}`)].map((t) => h("th", {}, t)),
          ),
        ),
        h(
          "tbody",
          {},
          c.pairs.map((p) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#item?id=${encodeURIComponent(p.itemId)}` }, p.itemId)),
              h("td", {}, p.model),
              h("td", {}, p.workflow),
              h("td", {}, p.params),
              h("td", {}, `${p.statusA ?? "–"} → ${p.statusB ?? "–"}`),
              h("td", {}, p.identical ? "yes" : "no"),
              h("td", { class: "num" }, fmt(p.difference)),
              deltaCols.map((d) => h("td", { class: "num" }, fmt(p.deltas[d]))),
            ),
          ),
        ),
      ),
    ),
    h(
      "p",
      { class: "pager" },
      h("button", { disabled: c.page === 0 ? "disabled" : null, onclick: () => set("page", String(c.page - 1)) }, "‹ previous"),
      ` page ${c.page + 1} of ${Math.max(1, Math.ceil(c.total / c.size))} `,
      h("button", { disabled: (c.page + 1) * c.size >= c.total ? "disabled" : null, onclick: () => set("page", String(c.page + 1)) }, "next ›"),
    ),
  );
}

start().catch((err) => setChildren(main, h("p", { class: "error" }, `Error: ${err.message}`)));
