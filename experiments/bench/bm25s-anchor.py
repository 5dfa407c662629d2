"""Same-window anchor for the BM25 benchmark: bm25s's algorithm re-implemented in numpy.

Not bm25s's code (it cannot be installed here: no PyPI); its algorithm as its paper and docs
describe it: an eager sparse score matrix in CSC form (one column per term: doc indices ascending,
the precomputed BM25 weight of each (term, doc) as float32), a query = the sum of its terms'
columns scatter-added into a dense float32 vector of N scores, top-k by np.argpartition.
The scatter-add is `scores[idx] += w` (the indices of one column are unique, so this equals
np.add.at and is the fastest numpy form: a conservative anchor).

Input (written by experiments/bench/retrieval.ts with medsynth's analyzer, so both engines score
the same postings): a tokens file, one natural-corpus document per line (analyzed terms of title
then text, space-separated); a queries file, one analyzed query per line. The corpus is the natural
corpus replicated to N documents with new ids: document i has the tokens of natural document
i mod n0 (the bench's replicate()). BM25: Lucene idf ln(1 + (N - df + 0.5)/(df + 0.5)), k1, b.

Protocol (stdin/stdout, one JSON object per line): prints {"ready": ...} after building; then
`round <seconds>` -> {"cpu_qps", "wall_qps", "p50", "p95", "queries"} (CPU time of this process,
latencies in ms, every query at least once, at least <seconds> of wall time); `check` -> top-10
scores of every query; `rss` -> {"peak_rss": bytes} (VmHWM); `quit`.

Usage: /usr/bin/python3 experiments/bench/bm25s-anchor.py TOKENS QUERIES N K1 B
"""
import json
import resource
import sys
import time

import numpy as np


def build(tokens_path, n, k1, b):
    vocab = {}
    nat_terms = []  # per natural doc: (term ids, tf) unique
    nat_len = []
    with open(tokens_path, encoding="utf8") as f:
        for line in f:
            toks = line.split()
            ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in toks), dtype=np.int64, count=len(toks))
            u, c = np.unique(ids, return_counts=True)
            nat_terms.append((u, c.astype(np.float64)))
            nat_len.append(len(toks))
    n0 = len(nat_terms)
    v = len(vocab)
    reps = -(-n // n0)
    # Natural postings grouped by term, doc ascending.
    nt = np.concatenate([u for u, _ in nat_terms]) if n0 else np.zeros(0, np.int64)
    nd = np.concatenate([np.full(len(u), j, np.int64) for j, (u, _) in enumerate(nat_terms)]) if n0 else np.zeros(0, np.int64)
    ntf = np.concatenate([c for _, c in nat_terms]) if n0 else np.zeros(0)
    order = np.lexsort((nd, nt))
    nt, nd, ntf = nt[order], nd[order], ntf[order]
    nat_ptr = np.zeros(v + 1, np.int64)
    np.add.at(nat_ptr, nt + 1, 1)
    nat_ptr = np.cumsum(nat_ptr)
    # Replicated document lengths and df.
    doc_nat = np.arange(n, dtype=np.int64) % n0
    dl = np.asarray(nat_len, np.float64)[doc_nat]
    avgdl = dl.mean() if n else 0.0
    norm = k1 * (1 - b + b * dl / avgdl) if avgdl > 0 else np.full(n, k1 * (1 - b))
    full, extra = divmod(n, n0)
    df = np.zeros(v, np.int64)
    for t in range(v):
        docs = nd[nat_ptr[t]:nat_ptr[t + 1]]
        df[t] = full * len(docs) + int(np.searchsorted(docs, extra))
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    indptr = np.zeros(v + 1, np.int64)
    indptr[1:] = np.cumsum(df)
    indices = np.empty(indptr[-1], np.int32)
    data = np.empty(indptr[-1], np.float32)
    for t in range(v):
        s, e = nat_ptr[t], nat_ptr[t + 1]
        docs = (np.arange(reps, dtype=np.int64)[:, None] * n0 + nd[s:e][None, :]).ravel()[: df[t]]
        tf = np.tile(ntf[s:e], reps)[: df[t]]
        indices[indptr[t]:indptr[t + 1]] = docs
        data[indptr[t]:indptr[t + 1]] = idf[t] * tf * (k1 + 1) / (tf + norm[docs])
    return vocab, indptr, indices, data


def peak_rss():
    """Peak RSS in bytes: VmHWM (Linux; ru_maxrss there includes the spawning parent's high-water mark), else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main():
    tokens_path, queries_path, n, k1, b = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    t0 = time.perf_counter()
    c0 = time.process_time()
    vocab, indptr, indices, data = build(tokens_path, n, k1, b)
    build_s = time.perf_counter() - t0
    build_cpu = time.process_time() - c0
    queries = []
    with open(queries_path, encoding="utf8") as f:
        for line in f:
            counts = {}
            for t in line.split():
                if t in vocab:
                    counts[vocab[t]] = counts.get(vocab[t], 0) + 1
            queries.append(list(counts.items()))
    k = 10

    def search(q):
        scores = np.zeros(n, np.float32)
        for t, c in q:
            s, e = indptr[t], indptr[t + 1]
            scores[indices[s:e]] += data[s:e] if c == 1 else np.float32(c) * data[s:e]
        top = np.argpartition(scores, -k)[-k:]
        top = top[np.argsort(-scores[top], kind="stable")]
        return top, scores[top]

    for q in queries[:50]:
        search(q)
    disk = int(indptr.nbytes + indices.nbytes + data.nbytes)
    print(json.dumps({"ready": True, "build_s": build_s, "build_cpu_s": build_cpu, "postings": int(indptr[-1]), "vocab": len(vocab), "matrix_bytes": disk}), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "round":
            min_s = float(cmd[1])
            lat = []
            c0 = time.process_time()
            w0 = time.perf_counter()
            i = 0
            while i < len(queries) or time.perf_counter() - w0 < min_s:
                s = time.perf_counter()
                search(queries[i % len(queries)])
                lat.append((time.perf_counter() - s) * 1000)
                i += 1
            wall = time.perf_counter() - w0
            cpu = time.process_time() - c0
            lat.sort()
            pct = lambda p: lat[min(len(lat) - 1, max(0, -(-p * len(lat) // 100) - 1))]
            print(json.dumps({"cpu_qps": i / cpu, "wall_qps": i / wall, "p50": pct(50), "p95": pct(95), "queries": i}), flush=True)
        elif cmd[0] == "check":
            print(json.dumps([[float(x) for x in search(q)[1]] if q else [] for q in queries]), flush=True)
        elif cmd[0] == "rss":
            print(json.dumps({"peak_rss": peak_rss()}), flush=True)
        elif cmd[0] == "quit":
            break


if __name__ == "__main__":
    main()
