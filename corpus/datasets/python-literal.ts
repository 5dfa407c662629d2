/**
 * Parse a Python literal as pandas writes it into a CSV cell (`str()` of a list of dicts):
 * `[{'label': 'BACKGROUND', 'text': "It's ..."}, ...]`. Supports lists, tuples, dicts, strings
 * in single or double quotes with backslash escapes, numbers, `None`, `True`, `False`.
 * Anything else throws; this is a reader for data cells, never an evaluator.
 */

/**
 * Parse one Python literal.
 * @throws SyntaxError naming the offset of the first unexpected character.
 */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`python literal: ${what} at offset ${i} (${JSON.stringify(text.slice(i, i + 20))})`);
  };
  const str = (): string => {
    const q = text[i++];
    let out = "";
    while (i < text.length && text[i] !== q) {
      if (text[i] === "\\") {
        const c = text[i + 1];
        const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
        if (c === "x" || c === "u" || c === "U") {
          const len = c === "x" ? 2 : c === "u" ? 4 : 8;
          out += String.fromCodePoint(parseInt(text.slice(i + 2, i + 2 + len), 16));
          i += 2 + len;
        } else {
          out += map[c] ?? `\\${c}`;
          i += 2;
        }
      } else out += text[i++];
    }
    if (text[i] !== q) fail("unterminated string");
    i++;
    return out;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str();
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      i++;
      const out: unknown[] = [];
      ws();
      while (text[i] !== close) {
        out.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          ws();
        } else if (text[i] !== close) fail(`expected , or ${close}`);
      }
      i++;
      return out;
    }
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      ws();
      while (text[i] !== "}") {
        const k = value();
        ws();
        if (text[i] !== ":") fail("expected :");
        i++;
        out[String(k)] = value();
        ws();
        if (text[i] === ",") {
          i++;
          ws();
        } else if (text[i] !== "}") fail("expected , or }");
      }
      i++;
      return out;
    }
    for (const [word, v] of [
      ["None", null],
      ["True", true],
      ["False", false],
    ] as const)
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(text.slice(i));
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    return fail("unexpected character");
  };
  const v = value();
  ws();
  if (i < text.length) fail("trailing characters");
  return v;
}
