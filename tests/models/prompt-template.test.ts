import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPromptTemplate, parsePromptTemplate, promptMeta, renderPrompt, resolvePromptTemplate } from "../../models/index.ts";

const root = mkdtempSync(join(tmpdir(), "medsynth-prompts-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GOOD = `---
id: golden-rag.synthesize
version: 2
description: test template
variables: [title, evidence]
---
## system
You summarise evidence.

## user
Title: {{ title }}
Evidence:
{{evidence}}
## assistant
Understood.
`;

function write(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe("prompt templates", () => {
  it("loads front matter and splits messages by ## role lines", () => {
    const t = loadPromptTemplate(write(join(root, "a"), "t.md", GOOD));
    expect(t).toMatchObject({ id: "golden-rag.synthesize", version: "2", description: "test template", variables: ["title", "evidence"] });
    expect(t.messages).toEqual([
      { role: "system", content: "You summarise evidence." },
      { role: "user", content: "Title: {{ title }}\nEvidence:\n{{evidence}}" },
      { role: "assistant", content: "Understood." },
    ]);
    expect(promptMeta(t, 3)).toEqual({ promptId: "golden-rag.synthesize", promptVersion: "2", repeat: 3 });
  });

  it("renders values literally, once", () => {
    const t = parsePromptTemplate(GOOD, "x.md");
    const m = renderPrompt(t, { title: "Aspirin {{evidence}}", evidence: "E1 $& $1" });
    expect(m[1].content).toBe("Title: Aspirin {{evidence}}\nEvidence:\nE1 $& $1");
  });

  it("render errors name the file and the variable", () => {
    const p = write(join(root, "b"), "t.md", GOOD);
    const t = loadPromptTemplate(p);
    expect(() => renderPrompt(t, { title: "x" })).toThrow(`Prompt template ${p} (golden-rag.synthesize): variable "evidence" is not supplied`);
    expect(() => renderPrompt(t, { title: "x", evidence: "y", tilte: "z" })).toThrow(/variable "tilte" is supplied but not declared/);
    expect(renderPrompt(t, { title: "x", evidence: "y", extra: 1 }, { allowExtra: true })[1].content).toContain("Title: x");
  });

  it("load errors: undeclared placeholder, unused variable, text before a header, bad front matter", () => {
    expect(() => parsePromptTemplate(GOOD.replace("{{evidence}}", "{{evidence}} {{k}}"), "f.md")).toThrow("Prompt template f.md: placeholder {{k}} is not declared");
    expect(() => parsePromptTemplate(GOOD.replace("variables: [title, evidence]", "variables: [title, evidence, k]"), "f.md")).toThrow(/variable "k" is declared but never used/);
    expect(() => parsePromptTemplate(GOOD.replace("## system", "hello\n## system"), "f.md")).toThrow(/text before the first/);
    expect(() => parsePromptTemplate("## user\nhi", "f.md")).toThrow(/missing YAML front matter/);
    expect(() => parsePromptTemplate(GOOD.replace("id: golden-rag.synthesize\n", ""), "f.md")).toThrow(/f.md: invalid front matter: id/);
    expect(() => parsePromptTemplate(GOOD.replace("description", "descr"), "f.md")).toThrow(/descr/);
  });

  it("an override folder wins over the bundled one", () => {
    const bundled = join(root, "bundled");
    const override = join(root, "override");
    write(bundled, "synth.md", GOOD);
    write(bundled, "only-bundled.md", GOOD.replace("version: 2", "version: 9"));
    write(override, "synth.md", GOOD.replace("version: 2", "version: user-1"));
    expect(resolvePromptTemplate("synth", { bundledDir: bundled, overrideDir: override }).version).toBe("user-1");
    expect(resolvePromptTemplate("only-bundled", { bundledDir: bundled, overrideDir: override }).version).toBe("9");
    expect(resolvePromptTemplate("synth.md", { bundledDir: bundled }).version).toBe("2");
    expect(() => resolvePromptTemplate("nope", { bundledDir: bundled, overrideDir: override })).toThrow(/"nope" not found; looked in: .*override\/nope.md, .*bundled\/nope.md/);
  });
});
