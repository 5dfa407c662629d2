/**
 * Builds and merges segments of the on-disk BM25 index ({@link ./disk-segment.ts}) in bounded
 * memory.
 *
 * {@link buildSegment}: documents are streamed (any `AsyncIterable` of batches, e.g. a corpus
 * store's `scanDocs`) and analysed exactly as the in-memory engine's build does (same term ids →
 * field-weighted tf as float32, same float64 doc lengths); their (term, tf) pairs fill a run buffer
 * of `runPostings` postings, which is sorted by term (a counting sort: docs arrive in order) and
 * written as a run file. At the end the runs are merged term by term (one buffered reader per run)
 * into the segment's blocks. Memory: the run buffer (~17 bytes per posting), the vocabulary (a
 * `Map` of its terms), 8 bytes per document (lengths, for the block maxima) and a 1 MiB reader per
 * run — not the corpus, not its postings.
 *
 * Resumable: after each run the run file, the new terms, ids and doc lengths are appended to files
 * in `<dir>.partial/` and `progress.json` (documents done, run list, file sizes) is replaced
 * atomically; a build killed at any point restarts from the last run written (later bytes are cut
 * off, the source's first `docsDone` documents are skipped), and one killed while merging redoes
 * the merge from the kept runs. The finished segment is renamed from `<dir>.partial` to `<dir>`.
 *
 * {@link mergeSegments}: writes one segment holding the live documents of several (in order, masked
 * documents dropped), term by term, reading each input's postings through its page cache.
 */
import { existsSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Analyzer } from "../analyzer.ts";
import type { Bm25Params } from "./params-core.ts";
import { BLOCK, ensureDir, FileAppender, FileScanner, readRaw, type SegmentReader, SegmentWriter, type SegmentHeader } from "./disk-segment.ts";

/** Default postings per run (~17 bytes each while the run is in memory: ≈ 270 MiB). */
export const DEFAULT_RUN_POSTINGS = 16_000_000;

/** Options of {@link buildSegment}. */
export interface SegmentBuildOptions {
  params: Bm25Params;
  analyzer: Analyzer;
  /** Postings per sorted run (default {@link DEFAULT_RUN_POSTINGS}). */
  runPostings?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** @internal test hook: called after each run is recorded (throwing simulates a crash). */
  afterRun?: (runs: number) => void;
}

interface Progress {
  params: Bm25Params;
  analyzerId: string;
  docsDone: number;
  runs: { file: string; postings: number }[];
  terms: number;
  termBytes: number;
  idBytes: number;
  /** True when the source was read to its end (only the merge is left). */
  complete: boolean;
}

/** Writes `value` as JSON to `path` atomically (temp file + rename). */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 1) + "\n");
  renameSync(tmp, path);
}

/**
 * Builds one segment folder `dir` from a stream of document batches, resuming an interrupted build
 * of the same params and analyzer in `<dir>.partial`.
 * @param dir the segment folder to create (must not exist unless already complete: then its header is returned).
 * @param docs batches in canonical order; ids unique (the stores guarantee it); the same order on a resumed run.
 * @returns the segment header.
 * @throws Error naming the document when a title or text is not a string.
 */
export async function buildSegment(dir: string, docs: AsyncIterable<readonly CorpusDoc[]>, opts: SegmentBuildOptions): Promise<SegmentHeader> {
  if (existsSync(join(dir, "header.json"))) return JSON.parse(readFileSync(join(dir, "header.json"), "utf8")) as SegmentHeader;
  const work = `${dir}.partial`;
  const log = opts.log ?? (() => {});
  const { params, analyzer } = opts;
  const runPostings = Math.max(1024, opts.runPostings ?? DEFAULT_RUN_POSTINGS);
  let prog = readProgress(work);
  if (!prog || prog.analyzerId !== analyzer.id || JSON.stringify(prog.params) !== JSON.stringify(params)) {
    rmSync(work, { recursive: true, force: true });
    ensureDir(work);
    prog = { params, analyzerId: analyzer.id, docsDone: 0, runs: [], terms: 0, termBytes: 0, idBytes: 0, complete: false };
    for (const f of ["terms.utf8", "terms.ends", "ids.utf8", "ids.ends", "doc-len.f64"]) writeFileSync(join(work, f), "");
  } else log(`bm25-disk: resuming ${work} at doc ${prog.docsDone} (${prog.runs.length} runs)`);
  // Cut off what was appended after the last recorded run.
  truncateSync(join(work, "terms.utf8"), prog.termBytes);
  truncateSync(join(work, "terms.ends"), prog.terms * 8);
  truncateSync(join(work, "ids.utf8"), prog.idBytes);
  truncateSync(join(work, "ids.ends"), prog.docsDone * 8);
  truncateSync(join(work, "doc-len.f64"), prog.docsDone * 8);
  if (!prog.complete) await writeRuns(work, docs, prog, runPostings, opts, log);
  return mergeRuns(dir, work, prog, params, analyzer.id, log);
}

function readProgress(work: string): Progress | null {
  try {
    return JSON.parse(readFileSync(join(work, "progress.json"), "utf8")) as Progress;
  } catch {
    return null;
  }
}

/** Streams the documents after `prog.docsDone` into sorted run files (step 1 of {@link buildSegment}). */
async function writeRuns(work: string, docs: AsyncIterable<readonly CorpusDoc[]>, prog: Progress, runPostings: number, opts: SegmentBuildOptions, log: (l: string) => void): Promise<void> {
  const { params, analyzer } = opts;
  // Vocabulary so far (resume) and the term-id analyzer over it.
  const vocab = new Map<string, number>();
  if (prog.terms > 0) {
    const ends = readRaw(join(work, "terms.ends"), Float64Array, prog.terms);
    const bytes = Buffer.from(readRaw(join(work, "terms.utf8"), Uint8Array, prog.termBytes).buffer);
    for (let t = 0, s = 0; t < prog.terms; s = ends[t], t++) vocab.set(bytes.toString("utf8", s, ends[t]), t);
  }
  let newTerms: string[] = [];
  let runCount = new Int32Array(Math.max(1024, vocab.size * 2));
  let tfAcc = new Float64Array(runCount.length);
  const termIdOf = (tok: string): number => {
    let t = vocab.get(tok);
    if (t === undefined) {
      t = vocab.size;
      vocab.set(tok, t);
      newTerms.push(tok);
      if (t >= runCount.length) {
        const c = new Int32Array(2 * t);
        c.set(runCount);
        runCount = c;
        const a = new Float64Array(2 * t);
        a.set(tfAcc);
        tfAcc = a;
      }
    }
    return t;
  };
  const ids = analyzer.termIds(termIdOf);
  const fields: ["title" | "text", number][] = [
    ["title", params.fieldWeights.title],
    ["text", params.fieldWeights.text],
  ];
  // The run buffer: (term, tf) pairs of its docs; doc i of the run has pairs [docEnd[i-1], docEnd[i]).
  const pairTerm = new Int32Array(runPostings + (1 << 16));
  const pairTf = new Float32Array(pairTerm.length);
  let np = 0;
  let runIds: string[] = [];
  let runLen: number[] = [];
  let docEnd: number[] = [];
  let buf = new Int32Array(1024);
  let docTerms = new Int32Array(1024);

  const flushRun = () => {
    if (runIds.length === 0) return;
    const runNo = prog.runs.length;
    const file = `run-${String(runNo).padStart(5, "0")}.bin`;
    writeRun(join(work, file), pairTerm, pairTf, np, docEnd, prog.docsDone, runCount, vocab.size);
    // Append the run's docs and new terms, then record the run.
    const idOut = new FileAppender(join(work, "ids.utf8"), true);
    const idEnds = new FileAppender(join(work, "ids.ends"), true);
    const lenOut = new FileAppender(join(work, "doc-len.f64"), true);
    for (let i = 0; i < runIds.length; i++) {
      idOut.writeBytes(Buffer.from(runIds[i], "utf8"));
      idEnds.writeFloat64(idOut.position);
      lenOut.writeFloat64(runLen[i]);
    }
    const termOut = new FileAppender(join(work, "terms.utf8"), true);
    const termEnds = new FileAppender(join(work, "terms.ends"), true);
    for (const t of newTerms) {
      termOut.writeBytes(Buffer.from(t, "utf8"));
      termEnds.writeFloat64(termOut.position);
    }
    for (const f of [idOut, idEnds, lenOut, termOut, termEnds]) f.close();
    prog.docsDone += runIds.length;
    prog.runs.push({ file, postings: np });
    prog.terms = vocab.size;
    prog.termBytes = termOut.position;
    prog.idBytes = idOut.position;
    writeJsonAtomic(join(work, "progress.json"), prog);
    log(`bm25-disk: run ${runNo} written (${np} postings; ${prog.docsDone} docs, ${vocab.size} terms)`);
    np = 0;
    runIds = [];
    runLen = [];
    docEnd = [];
    newTerms = [];
    opts.afterRun?.(prog.runs.length);
  };

  let skip = prog.docsDone;
  let seen = 0;
  for await (const batch of docs) {
    for (const doc of batch) {
      seen++;
      if (skip > 0) {
        skip--;
        continue;
      }
      let nd = 0;
      let len = 0;
      for (const [field, w] of fields) {
        const value = doc[field];
        if (typeof value !== "string") throw new Error(`bm25-disk build: doc ${JSON.stringify(doc.id)} (#${seen - 1}) field "${field}" is not a string`);
        if (buf.length < value.length) buf = new Int32Array(value.length * 2);
        const cnt = ids.analyzeInto(value, buf);
        len += cnt * w;
        if (docTerms.length < nd + cnt) {
          const g = new Int32Array(2 * (nd + cnt));
          g.set(docTerms);
          docTerms = g;
        }
        for (let j = 0; j < cnt; j++) {
          const t = buf[j];
          if (tfAcc[t] === 0) docTerms[nd++] = t;
          tfAcc[t] += w;
        }
      }
      for (let j = 0; j < nd; j++) {
        const t = docTerms[j];
        pairTerm[np] = t;
        pairTf[np++] = tfAcc[t];
        tfAcc[t] = 0;
      }
      docEnd.push(np);
      runIds.push(doc.id);
      runLen.push(len);
      // A document never splits across runs: flush when the next one might not fit.
      if (np >= runPostings) flushRun();
      else if (np + 65_536 > pairTerm.length) flushRun();
    }
  }
  if (skip > 0)
    throw new Error(`bm25-disk build: the source has ${seen} documents but ${prog.docsDone} were already indexed by the interrupted build in ${work}; the source changed — delete ${work} to rebuild`);
  flushRun();
  prog.complete = true;
  writeJsonAtomic(join(work, "progress.json"), prog);
}

/**
 * Writes one run: for each term present (ascending id), `[term int32][count int32][docs int32 ×
 * count][tf float32 × count]`. Docs are segment doc numbers (`docBase` + position in the run).
 */
function writeRun(path: string, pairTerm: Int32Array, pairTf: Float32Array, np: number, docEnd: number[], docBase: number, count: Int32Array, v: number): void {
  for (let i = 0; i < np; i++) count[pairTerm[i]]++;
  const start = new Int32Array(v + 1);
  for (let t = 0; t < v; t++) start[t + 1] = start[t] + count[t];
  const fill = start.slice(0, v);
  const docs = new Int32Array(np);
  const tfs = new Float32Array(np);
  for (let d = 0, i = 0; d < docEnd.length; d++) {
    for (const end = docEnd[d]; i < end; i++) {
      const p = fill[pairTerm[i]]++;
      docs[p] = docBase + d;
      tfs[p] = pairTf[i];
    }
  }
  const out = new FileAppender(path);
  for (let t = 0; t < v; t++) {
    const c = count[t];
    if (c === 0) continue;
    count[t] = 0;
    out.writeInt32(t);
    out.writeInt32(c);
    const s = start[t];
    out.writeBytes(new Uint8Array(docs.buffer, s * 4, c * 4));
    out.writeBytes(new Uint8Array(tfs.buffer, s * 4, c * 4));
  }
  out.close();
}

/** Merges the runs into the segment and renames the work folder (step 2 of {@link buildSegment}). */
function mergeRuns(dir: string, work: string, prog: Progress, params: Bm25Params, analyzerId: string, log: (l: string) => void): SegmentHeader {
  const docLen = readRaw(join(work, "doc-len.f64"), Float64Array, prog.docsDone);
  const writer = new SegmentWriter(work, docLen, params);
  const runs = prog.runs.map((r) => new FileScanner(join(work, r.file), 1 << 20));
  const cur = runs.map((r) => (r.remaining > 0 ? r.readInt32() : -1));
  const CH = 1 << 16;
  const dBuf = new Int32Array(CH);
  const tBuf = new Float32Array(CH);
  for (let t = 0; t < prog.terms; t++) {
    writer.beginTerm();
    for (let r = 0; r < runs.length; r++) {
      if (cur[r] !== t) continue;
      const s = runs[r];
      const c = s.readInt32();
      // docs then tfs: read in chunks of CH, keeping the two streams aligned through a temp copy.
      if (c <= CH) {
        s.readArray(dBuf, 0, c);
        s.readArray(tBuf, 0, c);
        writer.add(dBuf, tBuf, c);
      } else {
        const docs = new Int32Array(c);
        const tfs = new Float32Array(c);
        s.readArray(docs, 0, c);
        s.readArray(tfs, 0, c);
        writer.add(docs, tfs, c);
      }
      cur[r] = s.remaining > 0 ? s.readInt32() : -1;
    }
    writer.endTerm();
  }
  for (const s of runs) s.close();
  for (const r of prog.runs) rmSync(join(work, r.file), { force: true });
  rmSync(join(work, "progress.json"), { force: true });
  const header = writer.finish(analyzerId);
  renameSync(work, dir);
  log(
    `bm25-disk: segment ${dir}: ${header.docCount} docs, ${header.vocabSize} terms, ${header.postings} postings (${(header.postingBytes / Math.max(1, header.postings)).toFixed(2)} B/posting + 0.25 B block index)`,
  );
  return header;
}

/** An input of {@link mergeSegments}: an open segment and its deletion mask (bit d set = doc d masked; null = none). */
export interface MergeInput {
  seg: SegmentReader;
  mask: Uint8Array | null;
}

/**
 * Writes one segment `dir` holding the live documents of `inputs` in order (masked ones dropped):
 * terms in order of first appearance, postings remapped to the merged doc numbers; terms left with
 * no live posting are dropped. Memory: 12 bytes per input doc (lengths, remap) plus one term's
 * postings at a time.
 * @returns the merged segment's header.
 */
export function mergeSegments(dir: string, inputs: readonly MergeInput[], params: Bm25Params, analyzerId: string): SegmentHeader {
  const work = `${dir}.partial`;
  rmSync(work, { recursive: true, force: true });
  ensureDir(work);
  const live = (m: Uint8Array | null, d: number) => !m || (m[d >>> 3] & (1 << (d & 7))) === 0;
  // Doc remap and the merged ids / lengths.
  const remap: Int32Array[] = [];
  const lens: number[] = [];
  const idOut = new FileAppender(join(work, "ids.utf8"));
  const idEnds = new FileAppender(join(work, "ids.ends"));
  const lenOut = new FileAppender(join(work, "doc-len.f64"));
  let next = 0;
  for (const { seg, mask } of inputs) {
    const map = new Int32Array(seg.docCount).fill(-1);
    const dl = seg.readDocLen();
    let d = 0;
    for (const batch of seg.scanIds()) {
      for (const id of batch) {
        if (live(mask, d)) {
          map[d] = next++;
          idOut.writeBytes(Buffer.from(id, "utf8"));
          idEnds.writeFloat64(idOut.position);
          lenOut.writeFloat64(dl[d]);
          lens.push(dl[d]);
        }
        d++;
      }
    }
    remap.push(map);
  }
  for (const f of [idOut, idEnds, lenOut]) f.close();
  const writer = new SegmentWriter(work, Float64Array.from(lens), params);
  const termOut = new FileAppender(join(work, "terms.utf8"));
  const termEnds = new FileAppender(join(work, "terms.ends"));
  const docs = new Int32Array(BLOCK);
  const tfs = new Float64Array(BLOCK);
  const outD = new Int32Array(BLOCK);
  const outT = new Float64Array(BLOCK);
  for (let s = 0; s < inputs.length; s++) {
    const seg = inputs[s].seg;
    const v = seg.header.vocabSize;
    const ends = readRaw(join(seg.dir, "terms.ends"), Float64Array, v);
    const bytes = Buffer.from(readRaw(join(seg.dir, "terms.utf8"), Uint8Array, v > 0 ? ends[v - 1] : 0).buffer);
    for (let t = 0, st = 0; t < v; st = ends[t], t++) {
      const term = bytes.toString("utf8", st, ends[t]);
      // Emitted at its first segment only.
      let earlier = false;
      for (let e = 0; e < s && !earlier; e++) earlier = inputs[e].seg.termId(term) >= 0;
      if (earlier) continue;
      let began = false;
      for (let e = s; e < inputs.length; e++) {
        const g = inputs[e].seg;
        const id = e === s ? t : g.termId(term);
        if (id < 0) continue;
        const tb = g.termBlocks(id);
        const map = remap[e];
        for (let j = 0; j < tb.nb; j++) {
          const n = g.decode(tb, j, docs, tfs);
          let o = 0;
          for (let p = 0; p < n; p++) {
            const nd = map[docs[p]];
            if (nd < 0) continue;
            outD[o] = nd;
            outT[o++] = tfs[p];
          }
          if (o === 0) continue;
          if (!began) {
            writer.beginTerm();
            began = true;
          }
          writer.add(outD, outT, o);
        }
      }
      if (began) {
        writer.endTerm();
        termOut.writeBytes(Buffer.from(term, "utf8"));
        termEnds.writeFloat64(termOut.position);
      }
    }
  }
  termOut.close();
  termEnds.close();
  const header = writer.finish(analyzerId);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return header;
}
