/**
 * Relative links of the documentation resolve: every `[text](target)` and `![alt](target)` in
 * README.md, CONTRIBUTING.md, DEVELOPERS.md, CHANGELOG.md and docs/*.md (outside fenced blocks and
 * inline code) whose target is not a URL points at an existing file, and its `#anchor`, if any, at
 * a heading of the target Markdown file (GitHub's heading ids). A broken link fails the test
 * named after its file, with `file:line: target` for each.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One link found in a Markdown file. */
interface DocLink {
  /** 1-based line of the link. */
  line: number;
  /** The link target as written (path, optional `#anchor`). */
  target: string;
}

/**
 * Lines of `markdown` outside fenced code blocks, as [line number, text]; with `stripCode`,
 * inline code spans are removed from the text.
 */
function proseLines(markdown: string, stripCode = true): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let fence: string | null = null;
  markdown.split(/\r?\n/).forEach((text, i) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && text.trim() === open[1]) fence = null;
      return;
    }
    if (open) {
      fence = open[1];
      return;
    }
    out.push([i + 1, stripCode ? text.replace(/(`+)[^`][\s\S]*?\1/g, "") : text]);
  });
  return out;
}

/** The links of `markdown` that are not URLs (`http:`, `https:`, `mailto:`), with their lines. */
function relativeLinks(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  for (const [line, text] of proseLines(markdown)) {
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) links.push({ line, target: m[1] });
    }
  }
  return links;
}

/**
 * GitHub's id of a heading: markup (code ticks, emphasis, link syntax) dropped, lowercased,
 * every character but letters, digits, spaces, `-` and `_` removed, spaces turned into `-`.
 */
function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** The heading ids of `markdown` (repeated headings get `-1`, `-2` … as on GitHub). */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of proseLines(markdown, false)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!h) continue;
    const base = headingSlug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** The broken links of the Markdown file `file` (absolute), as `file:line: target (why)`. */
function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  const name = relative(ROOT, file);
  for (const { line, target } of relativeLinks(markdown)) {
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? "" : decodeURIComponent(target.slice(hash + 1));
    const dest = path === "" ? file : resolve(dirname(file), path);
    if (path !== "" && !existsSync(dest)) {
      broken.push(`${name}:${line}: ${target} (no such file)`);
      continue;
    }
    const headings = (): Set<string> => headingIds(path === "" ? markdown : readFileSync(dest, "utf8"));
    if (anchor && (path === "" || (!statSync(dest).isDirectory() && dest.endsWith(".md"))) && !headings().has(anchor)) {
      broken.push(`${name}:${line}: ${target} (no heading #${anchor} in ${relative(ROOT, dest)})`);
    }
  }
  return broken;
}

/** The documentation files checked: top-level guides and docs/*.md. */
function docFiles(): string[] {
  const files = ["README.md", "CONTRIBUTING.md", "DEVELOPERS.md", "CHANGELOG.md"].map((f) => join(ROOT, f)).filter((f) => existsSync(f));
  for (const f of readdirSync(join(ROOT, "docs")).sort()) if (f.endsWith(".md")) files.push(join(ROOT, "docs", f));
  return files;
}

describe("documentation links", () => {
  it("computes GitHub heading ids and finds only relative links outside code", () => {
    expect(headingSlug("Using an LLM endpoint (OpenAI, vLLM, Ollama, llama.cpp)")).toBe("using-an-llm-endpoint-openai-vllm-ollama-llamacpp");
    expect(headingSlug("On-disk BM25 (`engine: disk`)")).toBe("on-disk-bm25-engine-disk");
    expect(headingSlug("Calling `medsynth` from a checkout")).toBe("calling-medsynth-from-a-checkout");
    expect([...headingIds("# A\n## A\n```\n# not a heading\n```\n## A")]).toEqual(["a", "a-1", "a-2"]);
    const md = ["[a](x.md#y) and ![i](img.png)", "`[code](no.md)` [web](https://example.org)", "```", "[fenced](no.md)", "```", "[self](#top)"].join("\n");
    expect(relativeLinks(md)).toEqual([
      { line: 1, target: "x.md#y" },
      { line: 1, target: "img.png" },
      { line: 6, target: "#top" },
    ]);
  });

  it("reports a missing file and a missing anchor, and accepts a good link", () => {
    const file = join(ROOT, "docs", "x.md");
    expect(brokenLinks(file, "# Top\n[ok](#top) [gs](getting-started.md#install) [no](nothing-here.md) [bad](#nope) [badx](getting-started.md#nope)")).toEqual([
      "docs/x.md:2: nothing-here.md (no such file)",
      "docs/x.md:2: #nope (no heading #nope in docs/x.md)",
      "docs/x.md:2: getting-started.md#nope (no heading #nope in docs/getting-started.md)",
    ]);
  });

  for (const file of docFiles()) {
    it(`${relative(ROOT, file)}: every relative link resolves`, () => {
      expect(brokenLinks(file, readFileSync(file, "utf8"))).toEqual([]);
    });
  }
});
