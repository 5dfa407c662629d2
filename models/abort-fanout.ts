/**
 * Per-task abort signals linked to one shared signal at O(1) cost each.
 *
 * Node's `EventTarget.addEventListener` scans the listeners already registered (to drop
 * duplicates), and so does `removeEventListener`: n tasks that each listen on one shared signal
 * cost O(n²). A batch run keeps every pending cell in flight at once (10,000 cells: each cell's
 * attempts, sleeps and LangGraph invocations listened on the run's signal — a re-run spent minutes
 * of CPU in those scans). {@link linkedSignal} registers ONE listener per shared signal and keeps
 * the tasks in a Set; each task gets its own signal, on which its few listeners are cheap.
 */

const fans = new WeakMap<AbortSignal, Set<AbortController>>();

/** A task's own signal, aborted with the parent's reason when the parent aborts; `release` unlinks it (call it when the task ends). */
export interface LinkedSignal {
  signal: AbortSignal;
  release: () => void;
}

/**
 * A child signal of `parent` (see the file header). Without a parent the child never aborts
 * (unless its own controller is used); an already aborted parent gives an aborted child.
 * @returns the child signal and its `release` (idempotent; O(1)).
 */
export function linkedSignal(parent: AbortSignal | undefined): LinkedSignal {
  const child = new AbortController();
  if (!parent) return { signal: child.signal, release: () => undefined };
  if (parent.aborted) {
    child.abort(parent.reason);
    return { signal: child.signal, release: () => undefined };
  }
  let set = fans.get(parent);
  if (!set) {
    const children = new Set<AbortController>();
    fans.set(parent, (set = children));
    parent.addEventListener(
      "abort",
      () => {
        for (const c of children) c.abort(parent.reason);
        children.clear();
      },
      { once: true },
    );
  }
  const children = set;
  children.add(child);
  return { signal: child.signal, release: () => void children.delete(child) };
}
