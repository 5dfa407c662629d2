import { loadBundledCorpus } from "./corpus/bundled-corpus.ts";
import { createRetriever } from "./retrieval/registry.ts";
const docs = (await loadBundledCorpus({ sources: ["medevidence"] })).docs;
const byId = new Map(docs.map((d) => [d.id, d]));
for (const mode of ["bm25", "dense", "hybrid"] as const) {
  const r = await createRetriever({ mode, dense: { dir: "/tmp/lx/dd" } }, { docs, log: () => {} });
  for (const i of [17, 42]) {
    const hits = await r.search(docs[i].title, 3);
    console.log(mode, i, docs[i].id, JSON.stringify(docs[i].title.slice(0, 80)), "->", hits.map((h) => h.id + " " + JSON.stringify(h.scores)).join(" | "));
  }
}
console.log(byId.get("26135690")?.title, "\n", byId.get("20554982")?.title);
