/**
 * The ratings database of a study: `ratings.sqlite` in the study folder (better-sqlite3, WAL
 * journal, `synchronous = FULL`), written in one transaction on every submit, so a rating the
 * server acknowledged survives a crash or a closed tab.
 *
 * One row per (rater, task): a submit carries the revision the rater's page last saw; a stale
 * revision (another tab of the same rater saved in between) is refused with the current rating
 * instead of overwriting it, so two tabs never double a rating nor silently lose one; a repeat of
 * the save that made the current revision (a page retrying after a lost answer) is acknowledged
 * as saved. Every accepted submit is also appended to `history`.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";

/** A stored rating. */
export interface Rating {
  rater: string;
  task: string;
  /** `<rubric>.<dim>` → score (single mode). */
  scores: Record<string, number>;
  /** Pairwise mode: the preferred side as configured (not as shown): "a", "b" or "tie". */
  preference: "a" | "b" | "tie" | null;
  comment: string;
  /** 1 on the first save, +1 on each accepted change. */
  revision: number;
  updatedAt: string;
}

/** Outcome of {@link RatingStore.submit}. */
export type SubmitResult = { ok: true; rating: Rating } | { ok: false; conflict: true; current: Rating | null };

interface Row {
  rater: string;
  task: string;
  scores: string;
  preference: string | null;
  comment: string;
  revision: number;
  updated_at: string;
}

const fromRow = (r: Row): Rating => ({
  rater: r.rater,
  task: r.task,
  scores: JSON.parse(r.scores) as Record<string, number>,
  preference: (r.preference as Rating["preference"]) ?? null,
  comment: r.comment,
  revision: r.revision,
  updatedAt: r.updated_at,
});

/** The ratings database of one study. */
export class RatingStore {
  private readonly db: BetterSqlite3.Database;

  /**
   * Open (and create) `ratings.sqlite` in `studyDir`.
   * @throws when the file cannot be opened
   */
  constructor(studyDir: string) {
    let Database: typeof BetterSqlite3;
    try {
      Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    } catch (err) {
      throw new Error(`rating studies need better-sqlite3 (an optional peer dependency of medsynth: npm install better-sqlite3@12.9.0): ${err instanceof Error ? err.message : String(err)}`);
    }
    this.db = new Database(join(studyDir, "ratings.sqlite"));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ratings (
        rater TEXT NOT NULL, task TEXT NOT NULL, scores TEXT NOT NULL, preference TEXT,
        comment TEXT NOT NULL DEFAULT '', revision INTEGER NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (rater, task));
      CREATE TABLE IF NOT EXISTS history (
        id INTEGER PRIMARY KEY AUTOINCREMENT, rater TEXT NOT NULL, task TEXT NOT NULL, scores TEXT NOT NULL,
        preference TEXT, comment TEXT NOT NULL, revision INTEGER NOT NULL, at TEXT NOT NULL);`);
  }

  /** The journal mode in use ("wal"). */
  journalMode(): string {
    return String(this.db.pragma("journal_mode", { simple: true }));
  }

  /** One rater's ratings. */
  forRater(rater: string): Rating[] {
    return (this.db.prepare("SELECT * FROM ratings WHERE rater = ? ORDER BY task").all(rater) as Row[]).map(fromRow);
  }

  /** Every rating, by rater then task. */
  all(): Rating[] {
    return (this.db.prepare("SELECT * FROM ratings ORDER BY rater, task").all() as Row[]).map(fromRow);
  }

  /** Number of accepted submits (history rows). */
  historyCount(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM history").get() as { n: number }).n;
  }

  /**
   * Save a rating if `baseRevision` is the stored revision (0 when none is stored yet).
   * @returns the saved rating, or a conflict with the current one
   */
  submit(rater: string, task: string, value: { scores: Record<string, number>; preference: Rating["preference"]; comment: string }, baseRevision: number): SubmitResult {
    const tx = this.db.transaction((): SubmitResult => {
      const cur = this.db.prepare("SELECT * FROM ratings WHERE rater = ? AND task = ?").get(rater, task) as Row | undefined;
      const curRev = cur?.revision ?? 0;
      // a retry whose first attempt was stored but whose answer never reached the page: the same
      // value one revision on is acknowledged as saved (no second history row)
      if (cur && curRev === baseRevision + 1 && cur.scores === JSON.stringify(value.scores) && (cur.preference ?? null) === value.preference && cur.comment === value.comment)
        return { ok: true, rating: fromRow(cur) };
      if (curRev !== baseRevision) return { ok: false, conflict: true, current: cur ? fromRow(cur) : null };
      const now = new Date().toISOString();
      const row: Row = { rater, task, scores: JSON.stringify(value.scores), preference: value.preference, comment: value.comment, revision: curRev + 1, updated_at: now };
      this.db
        .prepare(
          "INSERT INTO ratings (rater, task, scores, preference, comment, revision, updated_at) VALUES (@rater, @task, @scores, @preference, @comment, @revision, @updated_at) ON CONFLICT(rater, task) DO UPDATE SET scores = excluded.scores, preference = excluded.preference, comment = excluded.comment, revision = excluded.revision, updated_at = excluded.updated_at",
        )
        .run(row);
      this.db.prepare("INSERT INTO history (rater, task, scores, preference, comment, revision, at) VALUES (@rater, @task, @scores, @preference, @comment, @revision, @updated_at)").run(row);
      return { ok: true, rating: fromRow(row) };
    });
    return tx.immediate();
  }

  /** Close the database (checkpoints the WAL). */
  close(): void {
    this.db.close();
  }
}
