#!/usr/bin/env python3
"""Same-window anchor for experiments/bench/scale.ts: the REAL bm25s library (not a numpy
re-implementation), kept in one process so the bench can interleave timing rounds with ours.

Settings as ../shared/anchors/bm25s_bench.py: method 'lucene', k1 1.5, b 0.75, bm25s' English
stop words, lower-casing, bm25s' default token pattern, PyStemmer's English (Snowball) stemmer
when importable; retrieve(k=10, n_threads=1). The timed figure is bm25s_bench.py's
`qps_tokenize_plus_retrieve`: tokenize(all query texts) + retrieve(...) per pass.

Usage: PYTHONPATH=<anchors>/bm25s python3 bm25s-real-anchor.py DOCS.jsonl QUERIES.json
  DOCS.jsonl: one JSON string per line (title + " " + abstract); QUERIES.json: a JSON list of strings.
Protocol (stdin → stdout, one JSON line each):
  (start)         → {"build_s", "tokenize_s", "docs", "vocab", "peak_rss", "stemmer", "bm25s", "python", "numpy"}
  round SECONDS   → passes over the queries until SECONDS have passed: {"wall_qps", "cpu_qps", "queries", "passes"}
  top             → top-10 doc indexes of every query: [[...], ...]
  rss             → {"peak_rss"} (VmHWM of this process, bytes)
  quit
"""
import json
import os
import sys
import time


def peak_rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def main():
    docs_path, queries_path = sys.argv[1], sys.argv[2]
    import bm25s

    try:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
        stemmer_desc = "PyStemmer english"
    except ImportError:
        stemmer = None
        stemmer_desc = "none (PyStemmer not importable)"
    with open(docs_path, encoding="utf-8") as fh:
        texts = [json.loads(line) for line in fh if line.strip()]
    with open(queries_path, encoding="utf-8") as fh:
        queries = json.load(fh)

    def tok(x):
        return bm25s.tokenize(x, lower=True, stopwords="en", stemmer=stemmer, show_progress=False)

    t0 = time.perf_counter()
    ctoks = tok(texts)
    t1 = time.perf_counter()
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(ctoks, show_progress=False)
    t2 = time.perf_counter()
    vocab = len(ctoks.vocab)
    n = len(texts)
    del texts, ctoks
    import numpy

    print(json.dumps({"build_s": t2 - t0, "tokenize_s": t1 - t0, "docs": n, "vocab": vocab, "peak_rss": peak_rss(), "stemmer": stemmer_desc, "bm25s": os.path.dirname(bm25s.__file__), "python": sys.executable, "numpy": numpy.__version__}), flush=True)
    nq = len(queries)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "round":
            seconds = float(cmd[1])
            passes = 0
            c0 = time.process_time()
            w0 = time.perf_counter()
            while passes == 0 or time.perf_counter() - w0 < seconds:
                qt = tok(queries)
                retriever.retrieve(qt, k=10, n_threads=1, show_progress=False)
                passes += 1
            wall = time.perf_counter() - w0
            cpu = time.process_time() - c0
            print(json.dumps({"wall_qps": passes * nq / wall, "cpu_qps": passes * nq / cpu, "queries": passes * nq, "passes": passes}), flush=True)
        elif cmd[0] == "top":
            res = retriever.retrieve(tok(queries), k=10, n_threads=1, show_progress=False)
            print(json.dumps([[int(j) for j in row] for row in res.documents]), flush=True)
        elif cmd[0] == "rss":
            print(json.dumps({"peak_rss": peak_rss()}), flush=True)
        elif cmd[0] == "quit":
            break


if __name__ == "__main__":
    sys.exit(main())
