/**
 * `corpus ingest <folder>` follows symbolic links: a linked folder, linked files and linked
 * subfolders inside a folder count as what they point to (they were skipped: an empty store); a
 * broken link and a folder with no XML file are errors naming them.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expandPubmedInputs, ingestPubmed } from "../../corpus/ingest.ts";
import { runCli } from "../cli/run-cli.ts";

/** The bundled edge-case PubMed XML files (11 records). */
const FIXTURES = resolve("tests/fixtures/pubmed-edge");
const XML = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".xml"))
  .sort();

/** `<tmp>/links/`: the first XML file linked, the folder of the others linked as `more/`; `<tmp>/folder` links the whole fixture folder. */
function linkedTree(): { root: string; links: string; folder: string } {
  const root = mkdtempSync(join(tmpdir(), "medsynth-ingest-links-"));
  const links = join(root, "links");
  mkdirSync(links);
  symlinkSync(join(FIXTURES, XML[0]), join(links, XML[0]));
  const others = join(root, "others");
  mkdirSync(others);
  for (const f of XML.slice(1)) symlinkSync(join(FIXTURES, f), join(others, f));
  symlinkSync(others, join(links, "more"));
  symlinkSync(others, join(others, "loop")); // a cycle: searched once
  const folder = join(root, "folder");
  symlinkSync(FIXTURES, folder);
  return { root, links, folder };
}

describe("ingest inputs behind symbolic links", () => {
  it("linked files and subfolders are found, a link cycle is searched once", async () => {
    const { links, folder } = linkedTree();
    expect(await expandPubmedInputs([links])).toEqual([join(links, XML[0]), ...XML.slice(1).map((f) => join(links, "more", f))]);
    expect(await expandPubmedInputs([folder])).toEqual(XML.map((f) => join(folder, f)));
    const direct = await ingestPubmed([FIXTURES]);
    const linked = await ingestPubmed([links]);
    expect(direct.counts.records).toBe(11);
    expect(linked.counts.records).toBe(direct.counts.records);
  });

  it("a broken link and a folder without XML are errors naming them", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-ingest-links-"));
    mkdirSync(join(root, "empty"));
    await expect(expandPubmedInputs([join(root, "empty")])).rejects.toThrow(`input folder ${join(root, "empty")} holds no .xml or .xml.gz file (searched recursively, links followed)`);
    symlinkSync(join(root, "gone.xml"), join(root, "empty", "dangling.xml"));
    await expect(expandPubmedInputs([join(root, "empty")])).rejects.toThrow(`${join(root, "empty", "dangling.xml")}: a broken symbolic link (its target does not exist)`);
  });

  it("`medsynth corpus ingest <folder of links> --store` fills the store", () => {
    const { root, links } = linkedTree();
    const r = runCli(["corpus", "ingest", links, "--store", join(root, "store")]);
    expect(r.stderr + r.stdout).toMatch(/store .*: 11 records/);
    expect(r.status).toBe(0);
  });
});
