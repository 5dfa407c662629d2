/**
 * The run folder's record of batch submissions (`batches.jsonl`, one JSON event per line, appended
 * and fsynced before the step it records is taken), so a run killed with `kill -9` re-attaches to
 * its in-flight batches and never resubmits a submitted request.
 *
 * Events: `submitting` (lines about to be uploaded: submission id, endpoint, model, custom_ids),
 * `submitted` (the batch id the server gave that submission), `final` (the batch's final state and
 * counts), `retried` (a line that failed, expired or was cancelled, and how it was retried).
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

/** One event of the journal. */
export type BatchJournalEvent =
  | { event: "submitting"; submission: string; endpoint: string; model: string; customIds: string[]; at: string }
  | { event: "submitted"; submission: string; batchId: string; at: string }
  | { event: "final"; batchId: string; status: string; completed?: number; failed?: number; at: string }
  | { event: "retried"; customId: string; batchId: string; how: "online" | "batch"; reason: string; at: string };

/** What the journal says about one submission. */
export interface JournalSubmission {
  submission: string;
  endpoint: string;
  model: string;
  customIds: string[];
  /** Absent when the process died between upload and the server's answer. */
  batchId?: string;
  /** Final state, when reached. */
  final?: string;
}

/** Append-only journal of a run's batches. */
export class BatchJournal {
  private constructor(
    readonly path: string,
    /** Submissions in the order they were made. */
    readonly submissions: JournalSubmission[],
  ) {}

  /**
   * Open (or start) the journal at `path`.
   * @throws Error naming the file and line when a line is not a journal event (other than an
   *   unfinished last line, which a crash mid-write leaves and which is ignored).
   */
  static open(path: string): BatchJournal {
    const subs = new Map<string, JournalSubmission>();
    const byBatch = new Map<string, JournalSubmission>();
    if (existsSync(path)) {
      const lines = readFileSync(path, "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!line.trim()) return;
        let e: BatchJournalEvent;
        try {
          e = JSON.parse(line) as BatchJournalEvent;
        } catch {
          if (i === lines.length - 1) return; // unfinished last line of a crash
          throw new Error(`${path}: line ${i + 1} is not JSON; the batch journal is damaged (move it away to start the batches afresh; submitted batches are then not re-attached)`);
        }
        if (e.event === "submitting") subs.set(e.submission, { submission: e.submission, endpoint: e.endpoint, model: e.model, customIds: e.customIds });
        else if (e.event === "submitted") {
          const s = subs.get(e.submission);
          if (s) {
            s.batchId = e.batchId;
            byBatch.set(e.batchId, s);
          }
        } else if (e.event === "final") {
          const s = byBatch.get(e.batchId);
          if (s) s.final = e.status;
        }
      });
    }
    return new BatchJournal(path, [...subs.values()]);
  }

  /** Appends one event and flushes it to disk before returning. */
  append(e: BatchJournalEvent): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, "a");
    try {
      appendFileSync(fd, JSON.stringify(e) + "\n");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (e.event === "submitting") this.submissions.push({ submission: e.submission, endpoint: e.endpoint, model: e.model, customIds: e.customIds });
    else if (e.event === "submitted") {
      const s = this.submissions.find((x) => x.submission === e.submission);
      if (s) s.batchId = e.batchId;
    } else if (e.event === "final") {
      const s = this.submissions.find((x) => x.batchId === e.batchId);
      if (s) s.final = e.status;
    }
  }
}
