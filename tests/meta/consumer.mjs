// Run by tests/meta/package.test.ts inside a fresh project where the packed medsynth tarball is
// installed: plain Node, no TypeScript loader. Imports every entry point and calls one function
// from each; prints one JSON line with the results.
const out = {};
const corpus = await import("medsynth/corpus");
const xml = `<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">123</PMID><Article><Journal><Title>J</Title></Journal><ArticleTitle>A title.</ArticleTitle><Abstract><AbstractText Label="CONCLUSIONS">It works.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
out.corpus = corpus.parsePubmedXmlString(xml).map((r) => [r.pmid, r.title]);
const judges = await import("medsynth/judges");
out.judges = judges.rougeScores("the cat sat on the mat", "the cat sat on a mat").rougeL.fmeasure;
const retrieval = await import("medsynth/retrieval");
const docs = [
  { id: "1", title: "Aspirin and stroke", text: "Aspirin reduced stroke in adults." },
  { id: "2", title: "Statins", text: "Statins lowered mortality in heart failure." },
  { id: "3", title: "Insulin", text: "Insulin improved glucose control." },
];
const bm25 = retrieval.buildBm25(docs, { cache: false });
out.retrieval = (await bm25.engine.search("stroke aspirin", 2)).map((h) => h.id);
const models = await import("medsynth/models");
const extractive = models.createGeneratorModel("extractive:mmr");
out.models = extractive.id;
const graphs = await import("medsynth/graphs");
const llm = models.createGeneratorModel(
  "openai:scripted-chat",
  { baseURL: process.env.SCRIPTED_BASE_URL, apiKeyEnv: "TEST_KEY", maxRetries: 0, timeoutMs: 30000 },
  { cacheDir: process.env.CONSUMER_CACHE, env: { TEST_KEY: "sk-test" } },
);
const wf = graphs.getWorkflow("pzs").create({ model: llm }, {});
const r = await wf.run({ id: "m1", question: "Does aspirin reduce stroke?", goldenDocs: [], referenceConclusion: "x" }, { repeat: 0 });
out.graphs = [r.status, r.output ?? r.error ?? r.reason];
const experiments = await import("medsynth/experiments");
out.experiments = experiments.expandParams({ k: [5, 10] }).length;
const viewer = await import("medsynth/viewer");
out.viewer = await viewer.toCsv(["id", "text"], [{ id: "1", text: "a, b" }]);
console.log(JSON.stringify(out));
