// The rating page of one rater (the token in the URL is the only credential). Tasks come
// blinded from the server; each submit is stored at once, so the rater can stop and come back.
//
// Keyboard and screen-reader use: a skip link leads to the form; a progress bar and a "go to
// task" field replace a button per task (a few Tab stops instead of one per task); status
// messages are spoken from an aria-live region; after a save, focus moves to the next task's
// heading. A save the server does not answer keeps the rater's input and is retried.
import { h, setChildren, getJson } from "/static/common.js";

const main = document.getElementById("main");
const progress = document.getElementById("progress");
const token = decodeURIComponent(location.pathname.split("/").pop());
/** Retry delays (ms) of a save the server did not answer; the last one repeats. */
const RETRY_MS = [1000, 2000, 4000, 8000, 15000];
const UNREACHABLE = "not saved — the server cannot be reached; try again";

let data = null;
let current = 0;
/** Unsaved input per task position: { scores, preference, comment } as the form holds it. */
const drafts = new Map();
/** Saves waiting for the server, by task position: { body, attempt, timer }. */
const pending = new Map();
let shell = null;

function buildShell() {
  const bar = h("progress", { id: "progress-bar", max: "1", value: "0", "aria-label": "tasks rated" });
  const gotoInput = h("input", { id: "goto-input", type: "number", min: "1", inputmode: "numeric", "aria-describedby": "goto-range" });
  const gotoForm = h(
    "form",
    {
      id: "goto",
      class: "goto",
      novalidate: "novalidate",
      onsubmit: (e) => {
        e.preventDefault();
        const n = Number(gotoInput.value);
        if (Number.isInteger(n) && n >= 1 && n <= data.tasks.length) go(n - 1, true);
        else say("error", `There is no task ${gotoInput.value}: choose 1 to ${data.tasks.length}.`);
      },
    },
    h("label", { for: "goto-input" }, "Go to task "),
    gotoInput,
    h("span", { id: "goto-range", class: "muted" }, ""),
    " ",
    h("button", { type: "submit" }, "Go"),
    " ",
    h(
      "button",
      {
        type: "button",
        id: "next-open",
        onclick: () => {
          const i = nextOpen(current);
          if (i !== -1) go(i, true);
          else say("ok", "Every task is rated.");
        },
      },
      "Next unrated",
    ),
  );
  const status = h("div", { id: "status", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const task = h("div", { id: "task" });
  setChildren(main, h("nav", { class: "task-nav", "aria-label": "tasks" }, h("div", { class: "progress-line" }, bar, h("span", { id: "progress-count" }, "")), gotoForm), status, task);
  shell = { bar, gotoInput, status, task, range: document.getElementById("goto-range"), count: document.getElementById("progress-count") };
}

/** Fetch the rater's tasks and saved ratings (renders nothing). */
async function fetchData() {
  data = await getJson(`/api/rate/${encodeURIComponent(token)}`);
}

/** First load: fetch, build the page, show the task in the URL or the first unrated one. */
async function load() {
  await fetchData();
  if (!shell) buildShell();
  const fromHash = Number(location.hash.replace("#", ""));
  if (fromHash >= 1 && fromHash <= data.tasks.length) current = fromHash - 1;
  else {
    const firstOpen = data.tasks.findIndex((t) => !t.rating);
    current = firstOpen === -1 ? data.tasks.length - 1 : firstOpen;
  }
  render();
}

/** The first unrated task after `i` (wrapping), or -1. */
function nextOpen(i) {
  for (let k = 1; k <= data.tasks.length; k++) {
    const j = (i + k) % data.tasks.length;
    if (!data.tasks[j].rating) return j;
  }
  return -1;
}

/** Show a status message (spoken by screen readers through the live region). */
function say(kind, text) {
  setChildren(shell.status, text ? h("p", { class: kind, id: "message" }, text) : null);
}

function focusHeading() {
  document.getElementById("task-title")?.focus();
}

function go(i, focus = false) {
  current = Math.max(0, Math.min(data.tasks.length - 1, i));
  location.hash = String(current + 1);
  if (!pending.size) say(null, null);
  render();
  if (focus) focusHeading();
}

/** The form's current input for a task (what a draft or a save carries). */
function readForm(form) {
  const fd = new FormData(form);
  const v = { comment: fd.get("comment") ?? "" };
  if (data.form.mode === "pairwise") v.preference = fd.get("preference");
  else v.scores = Object.fromEntries(data.form.dimensions.map((d) => [d.id, fd.get(`score-${d.id}`)]));
  return v;
}

function scoreField(dim, saved) {
  const name = `score-${dim.id}`;
  const anchorsFor = (s) => dim.anchors.find((a) => a.score === s);
  const steps = dim.max - dim.min;
  const same = (s) => saved !== undefined && saved !== null && saved !== "" && Number(saved) === s;
  if (dim.type === "binary" || steps <= 10) {
    const opts = [];
    for (let s = dim.max; s >= dim.min; s--) {
      const a = anchorsFor(s);
      opts.push(
        h(
          "label",
          { class: "choice" },
          h("input", { type: "radio", name, value: String(s), required: "required", checked: same(s) ? "checked" : null, "data-dim": dim.id }),
          ` ${s}`,
          a ? h("span", { class: "anchor" }, ` — ${a.label}: ${a.description}`) : null,
        ),
      );
    }
    return h("fieldset", { class: "dimension", "data-dim": dim.id }, h("legend", {}, dim.name), h("div", { class: "muted" }, dim.description), opts);
  }
  return h(
    "fieldset",
    { class: "dimension", "data-dim": dim.id },
    h("legend", {}, `${dim.name} (${dim.min}–${dim.max})`),
    h("div", { class: "muted" }, dim.description),
    h("input", { type: "number", name, min: dim.min, max: dim.max, step: 1, required: "required", value: saved ?? "", "data-dim": dim.id, "aria-label": `${dim.name} score` }),
    h(
      "div",
      { class: "anchors" },
      dim.anchors.map((a) => h("div", { class: "anchor" }, `${a.score} — ${a.label}: ${a.description}`)),
    ),
  );
}

/** True for a failure where the server did not answer (network down, proxy without a backend). */
const unreachable = (err) => !err.status || err.status === 502 || err.status === 503 || err.status === 504;

/** Send one save; on success reload and move on, on a dead server keep the input and retry. */
async function submit(position, body) {
  const prev = pending.get(position);
  clearTimeout(prev?.timer);
  const attempt = prev ? prev.attempt : 0;
  pending.delete(position);
  try {
    await getJson(`/api/rate/${encodeURIComponent(token)}/${position}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (err) {
    if (err.status === 429) {
      const wait = Math.max(1, Number(err.body?.retryAfterS) || 5);
      pending.set(position, { body, attempt, timer: setTimeout(() => void submit(position, body), wait * 1000) });
      say("error", `not saved yet — too many saves in a short time; saving again in ${wait} s (your input is kept on this page).`);
      return;
    }
    if (unreachable(err)) {
      const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
      pending.set(position, { body, attempt: attempt + 1, timer: setTimeout(() => void submit(position, body), delay) });
      say("error", `${UNREACHABLE} (task ${position}; retrying in ${Math.round(delay / 1000)} s — your input is kept on this page).`);
      return;
    }
    say("error", err.status === 409 ? err.message : `not saved — ${err.message}`);
    if (err.status === 409) {
      drafts.delete(position);
      await fetchData();
      if (current === position - 1) render();
      else renderProgress();
    }
    return;
  }
  drafts.delete(position);
  const stay = current !== position - 1; // the rater moved on while the save was retried
  try {
    await fetchData();
  } catch {
    say("ok", `Task ${position} saved, but the page could not refresh its task list: reload the page before going on.`);
    return;
  }
  if (stay) {
    // leave the task on screen alone (the rater may be typing in it): progress only
    renderProgress();
    say("ok", `Task ${position} saved.`);
    return;
  }
  if (!data.tasks[current].calibration) {
    const next = data.tasks.findIndex((x, i) => i > current && !x.rating);
    if (next !== -1) current = next;
  }
  location.hash = String(current + 1);
  render();
  say("ok", "Saved.");
  focusHeading();
}

function renderProgress() {
  const done = data.tasks.filter((t) => t.rating).length;
  setChildren(progress, `${data.rater} · ${done} of ${data.tasks.length} rated`);
  shell.bar.max = data.tasks.length;
  shell.bar.value = done;
  shell.bar.setAttribute("aria-valuetext", `${done} of ${data.tasks.length} tasks rated`);
  shell.count.textContent = ` ${done} of ${data.tasks.length} rated · task ${current + 1} shown`;
  shell.gotoInput.max = String(data.tasks.length);
  shell.gotoInput.placeholder = String(current + 1);
  shell.range.textContent = ` (1–${data.tasks.length})`;
}

function render() {
  renderProgress();
  const t = data.tasks[current];
  const draft = drafts.get(t.position);
  const form = h("form", { id: "rating-form", "aria-labelledby": "task-title" });
  if (data.form.mode === "pairwise") {
    const pref = draft ? draft.preference : t.rating?.preference;
    form.append(
      h(
        "fieldset",
        { class: "dimension" },
        h("legend", {}, "Which output agrees better with the reference?"),
        ["A", "B", "tie"].map((p) =>
          h(
            "label",
            { class: "choice" },
            h("input", { type: "radio", name: "preference", value: p, required: "required", checked: pref === p ? "checked" : null }),
            p === "tie" ? " no preference" : ` ${p}`,
          ),
        ),
      ),
    );
  } else {
    data.form.dimensions.forEach((d) => form.append(scoreField(d, draft ? draft.scores?.[d.id] : t.rating?.scores?.[d.id])));
  }
  form.append(
    h("label", { class: "comment" }, "Comment (optional)", h("textarea", { name: "comment", rows: 3 }, draft ? draft.comment : (t.rating?.comment ?? ""))),
    h("button", { type: "submit", id: "save" }, t.rating ? "Save change" : "Save rating"),
  );
  form.addEventListener("input", () => drafts.set(t.position, readForm(form)));
  form.addEventListener("change", () => drafts.set(t.position, readForm(form)));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = readForm(form);
    drafts.set(t.position, v);
    say("ok", "Saving…");
    void submit(t.position, { revision: t.rating?.revision ?? 0, ...v });
  });
  const reference = t.reference ?? (data.form.mode === "pairwise" ? "(no reference text)" : null);
  setChildren(
    shell.task,
    h(
      "h2",
      { id: "task-title", tabindex: "-1" },
      `Task ${t.position} of ${data.tasks.length}`,
      t.calibration ? h("span", { class: "badge" }, " calibration") : null,
      t.rating ? h("span", { class: "badge rated-badge" }, " rated") : null,
    ),
    t.question ? h("section", {}, h("h3", {}, "Question"), h("div", { class: "text", id: "question" }, t.question)) : null,
    t.source ? h("section", { class: "source" }, h("h3", {}, "Source"), h("div", { class: "text", id: "source" }, t.source)) : null,
    reference ? h("section", { class: "reference" }, h("h3", {}, "Reference"), h("div", { class: "text", id: "reference" }, reference)) : null,
    h(
      "div",
      { class: "cells-side" },
      t.outputs.map((o) => h("article", { class: "cell" }, h("h3", {}, o.label), h("div", { class: "text output" }, o.text))),
    ),
    t.referenceScores
      ? h(
          "section",
          { class: "calibration", id: "calibration-reference" },
          h("h3", {}, "Reference rating"),
          Object.entries(t.referenceScores).map(([k, v]) => h("div", {}, `${k}: ${v}`)),
        )
      : null,
    form,
    h(
      "p",
      { class: "pager" },
      h("button", { id: "prev", disabled: current === 0 ? "disabled" : null, onclick: () => go(current - 1, true) }, "‹ previous"),
      " ",
      h("button", { id: "next", disabled: current + 1 >= data.tasks.length ? "disabled" : null, onclick: () => go(current + 1, true) }, "next ›"),
    ),
  );
}

// the skip link (first Tab stop of the page) moves focus into the form's first field
document.getElementById("skip-to-form").addEventListener("click", (e) => {
  e.preventDefault();
  document.querySelector("#rating-form input, #rating-form textarea, #rating-form button")?.focus();
});
// closing the tab while a save waits for the server: the browser asks first
window.addEventListener("beforeunload", (e) => {
  if (pending.size) e.preventDefault();
});
window.addEventListener("online", () => {
  for (const [position, p] of pending) void submit(position, p.body);
});
load().catch((err) => setChildren(main, h("p", { class: "error", role: "alert" }, `Error: ${err.message}`)));
