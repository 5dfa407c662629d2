// Shared helpers of the viewer pages. Every string reaches the page as a text node or an
// attribute value set through the DOM (never innerHTML), so HTML inside data stays text.

/**
 * Create an element: h("td", {class: "x", onclick: fn}, "text", child, …). Strings become text
 * nodes; null/undefined/false children are skipped; arrays are flattened.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, String(v));
  }
  const add = (c) => {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) c.forEach(add);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  };
  children.forEach(add);
  return el;
}

/** Replace the children of an element. */
export function setChildren(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
}

/** Fetch JSON; throws Error(message) on a non-2xx answer, with the server's error text. */
export async function getJson(url, init) {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(body.error || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.body = body;
    throw err;
  }
  return body;
}

/** Format a number for a table cell ("–" when missing). */
export function fmt(v, digits = 3) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return v.toFixed(digits);
}

/**
 * A token count as the rest of medsynth shows it (models/usage.ts formatTokenCount): "1,234";
 * "≥ 1,234 (2 calls unknown)" when some calls reported no usage (a lower bound); "–" when the
 * count is unknown (null, or 0 with calls that reported none) — never a 0 standing for unknown.
 */
export function fmtTokens(tokens, unknownCalls = 0) {
  const n = (x) => x.toLocaleString("en-US");
  const calls = unknownCalls > 0 ? ` (${n(unknownCalls)} call${unknownCalls === 1 ? "" : "s"} unknown)` : "";
  if (tokens === null || tokens === undefined || (unknownCalls > 0 && tokens === 0)) return `–${calls}`;
  return unknownCalls > 0 ? `≥ ${n(tokens)}${calls}` : n(tokens);
}

/**
 * Word-level diff of two sentences (longest common subsequence): a list of
 * {text, kind: "same" | "del" | "ins"} segments.
 */
export function wordDiff(a, b) {
  const x = a.split(/(\s+)/).filter((s) => s !== "");
  const y = b.split(/(\s+)/).filter((s) => s !== "");
  const n = x.length,
    m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  const push = (text, kind) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ text, kind });
  };
  let i = 0,
    j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      push(x[i], "same");
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) push(x[i++], "del");
    else push(y[j++], "ins");
  }
  while (i < n) push(x[i++], "del");
  while (j < m) push(y[j++], "ins");
  return out;
}
