// The rating page of one rater (the token in the URL is the only credential). Tasks come
// blinded from the server; each submit is stored at once, so the rater can stop and come back.
import { h, setChildren, getJson } from "/static/common.js";

const main = document.getElementById("main");
const progress = document.getElementById("progress");
const token = decodeURIComponent(location.pathname.split("/").pop());
let data = null;
let current = 0;
let message = null;

async function load() {
  data = await getJson(`/api/rate/${encodeURIComponent(token)}`);
  const fromHash = Number(location.hash.replace("#", ""));
  if (fromHash >= 1 && fromHash <= data.tasks.length) current = fromHash - 1;
  else {
    const firstOpen = data.tasks.findIndex((t) => !t.rating);
    current = firstOpen === -1 ? data.tasks.length - 1 : firstOpen;
  }
  render();
}

function go(i) {
  current = Math.max(0, Math.min(data.tasks.length - 1, i));
  location.hash = String(current + 1);
  message = null;
  render();
}

function scoreField(dim, saved) {
  const name = `score-${dim.id}`;
  const anchorsFor = (s) => dim.anchors.find((a) => a.score === s);
  const steps = dim.max - dim.min;
  if (dim.type === "binary" || steps <= 10) {
    const opts = [];
    for (let s = dim.max; s >= dim.min; s--) {
      const a = anchorsFor(s);
      opts.push(
        h(
          "label",
          { class: "choice" },
          h("input", { type: "radio", name, value: String(s), required: "required", checked: saved === s ? "checked" : null, "data-dim": dim.id }),
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
    h("input", { type: "number", name, min: dim.min, max: dim.max, step: 1, required: "required", value: saved ?? "", "data-dim": dim.id }),
    h("div", { class: "anchors" }, dim.anchors.map((a) => h("div", { class: "anchor" }, `${a.score} — ${a.label}: ${a.description}`))),
  );
}

function render() {
  const done = data.tasks.filter((t) => t.rating).length;
  setChildren(progress, `${data.rater} · ${done} of ${data.tasks.length} rated`);
  const t = data.tasks[current];
  const form = h("form", { id: "rating-form" });
  if (data.form.mode === "pairwise") {
    form.append(
      h(
        "fieldset",
        { class: "dimension" },
        h("legend", {}, "Which output agrees better with the reference?"),
        ["A", "B", "tie"].map((p) => h("label", { class: "choice" }, h("input", { type: "radio", name: "preference", value: p, required: "required", checked: t.rating?.preference === p ? "checked" : null }), p === "tie" ? " no preference" : ` ${p}`)),
      ),
    );
  } else {
    data.form.dimensions.forEach((d) => form.append(scoreField(d, t.rating?.scores?.[d.id])));
  }
  form.append(
    h("label", { class: "comment" }, "Comment (optional)", h("textarea", { name: "comment", rows: 3 }, t.rating?.comment ?? "")),
    h("button", { type: "submit", id: "save" }, t.rating ? "Save change" : "Save rating"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const body = { revision: t.rating?.revision ?? 0, comment: fd.get("comment") ?? "" };
    if (data.form.mode === "pairwise") body.preference = fd.get("preference");
    else body.scores = Object.fromEntries(data.form.dimensions.map((d) => [d.id, fd.get(`score-${d.id}`)]));
    try {
      await getJson(`/api/rate/${encodeURIComponent(token)}/${t.position}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      message = { kind: "ok", text: "Saved." };
      const keep = current;
      await load();
      current = keep;
      if (!data.tasks[current].calibration) {
        const next = data.tasks.findIndex((x, i) => i > current && !x.rating);
        if (next !== -1) current = next;
      }
      location.hash = String(current + 1);
      render();
    } catch (err) {
      message = { kind: "error", text: err.message };
      if (err.status === 409) {
        const keep = current;
        await load();
        current = keep;
      }
      render();
    }
  });
  setChildren(
    main,
    h("nav", { class: "tasks" }, data.tasks.map((x, i) => h("button", { class: `task-dot${x.rating ? " rated" : ""}${i === current ? " current" : ""}`, title: `task ${i + 1}`, onclick: () => go(i) }, String(i + 1)))),
    message ? h("p", { class: message.kind === "ok" ? "ok" : "error", id: "message" }, message.text) : null,
    h("h2", { id: "task-title" }, `Task ${t.position} of ${data.tasks.length}`, t.calibration ? h("span", { class: "badge" }, " calibration") : null),
    t.question ? h("section", {}, h("h4", {}, "Question"), h("div", { class: "text", id: "question" }, t.question)) : null,
    h("section", { class: "reference" }, h("h4", {}, "Reference"), h("div", { class: "text", id: "reference" }, t.reference ?? "(no reference text)")),
    h("div", { class: "cells-side" }, t.outputs.map((o) => h("article", { class: "cell" }, h("h3", {}, o.label), h("div", { class: "text output" }, o.text)))),
    t.referenceScores ? h("section", { class: "calibration", id: "calibration-reference" }, h("h4", {}, "Reference rating"), Object.entries(t.referenceScores).map(([k, v]) => h("div", {}, `${k}: ${v}`))) : null,
    form,
    h("p", { class: "pager" }, h("button", { id: "prev", disabled: current === 0 ? "disabled" : null, onclick: () => go(current - 1) }, "‹ previous"), " ", h("button", { id: "next", disabled: current + 1 >= data.tasks.length ? "disabled" : null, onclick: () => go(current + 1) }, "next ›")),
  );
}

load().catch((err) => setChildren(main, h("p", { class: "error" }, `Error: ${err.message}`)));
