/**
 * Readable operating-system errors for the CLI (issue 13.9): the file concerned and the real
 * cause, e.g. `cannot write /data/out/results.jsonl: read-only file system (EROFS)`, instead of
 * Node's `EROFS: read-only file system, open '…'`. No heavy imports: main.ts uses it for every
 * command's error line.
 */

/** Plain words for the error codes users meet when a path is wrong, full or protected. */
const CAUSES: Record<string, string> = {
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "something is already there (a file where a folder is needed, or the reverse)",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or folder",
  ENAMETOOLONG: "file name too long",
  EMFILE: "too many open files",
  EBUSY: "the file is busy (in use)",
};

/** What the system call was doing, for the message's verb. */
function verbOf(syscall: string | undefined): string {
  switch (syscall) {
    case "open":
    case "read":
    case "scandir":
    case "stat":
    case "lstat":
      return "cannot read or open";
    case "write":
    case "rename":
    case "copyfile":
    case "unlink":
    case "rmdir":
      return "cannot write";
    case "mkdir":
      return "cannot create the folder";
    default:
      return "cannot access";
  }
}

/**
 * One line for a Node system error (`code` + `syscall` [+ `path`/`dest`]), naming the path and the
 * cause in words with its code; null for anything else (the caller keeps the error's message).
 * For a rename the destination is named (the file the user asked for, not the temporary one).
 */
export function describeOsError(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const e = err as NodeJS.ErrnoException & { dest?: string };
  if (typeof e.code !== "string" || typeof e.syscall !== "string" || !/^E[A-Z]+$/.test(e.code)) return null;
  if (e.syscall === "listen") {
    const where = (e as { address?: string; port?: number }).port !== undefined ? `${(e as { address?: string }).address ?? "127.0.0.1"}:${(e as { port?: number }).port}` : "the address";
    if (e.code === "EADDRINUSE") return `cannot listen on ${where}: the port is in use (another medsynth view/annotate?); pass --port <free port> or --port 0 for any free one (EADDRINUSE)`;
    return `cannot listen on ${where}: ${CAUSES[e.code] ?? e.message} (${e.code})`;
  }
  const cause = CAUSES[e.code] ?? e.message.replace(/^E[A-Z]+: /, "").replace(/, \w+ '.*$/, "");
  const path = e.syscall === "rename" && e.dest ? e.dest : e.path;
  return `${verbOf(e.syscall)} ${path ?? "(a file)"}: ${cause} (${e.code})`;
}
