/**
 * Messages that tell the user what to run call the CLI as this install can: `node bin/medsynth.js`
 * (relative to the current folder) in a checkout, where `npx medsynth` would reinstall the
 * checkout on every call; `npx medsynth` in an installed package.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { medsynthCommand, REPO_ROOT } from "../../corpus/paths.ts";
import { pullCommand } from "../../corpus/datasets/files.ts";
import { resolveShard } from "../../experiments/shard-auto.ts";
import { readStudy } from "../../viewer/study/study.ts";

describe("medsynthCommand", () => {
  it("a checkout: node and bin/medsynth.js relative to the current folder, quoted when needed", () => {
    expect(medsynthCommand("/home/me/medsynth", "/home/me/medsynth")).toBe("node bin/medsynth.js");
    expect(medsynthCommand("/home/me/medsynth", "/home/me/medsynth/runs")).toBe("node ../bin/medsynth.js");
    expect(medsynthCommand("/home/me/my code/medsynth", "/tmp")).toBe("node '../home/me/my code/medsynth/bin/medsynth.js'");
  });

  it("an installed package: npx medsynth", () => {
    expect(medsynthCommand("/home/me/project/node_modules/medsynth", "/home/me/project")).toBe("npx medsynth");
    expect(medsynthCommand("/usr/lib/node_modules/medsynth", "/tmp")).toBe("npx medsynth");
  });

  it("this checkout's messages (run from its root) say node bin/medsynth.js", () => {
    expect(process.cwd()).toBe(REPO_ROOT);
    expect(medsynthCommand()).toBe(`node ${join("bin", "medsynth.js")}`);
    expect(pullCommand("medmeta ms2")).toBe("node bin/medsynth.js datasets pull medmeta ms2");
  });

  it("hints of other folders name the command the same way", () => {
    const cmd = medsynthCommand();
    expect(() => resolveShard("auto", undefined, {})).toThrow(`start it with \`${cmd} cluster slurm|k8s\``);
    const dir = join(REPO_ROOT, "no-such-study-folder");
    expect(() => readStudy(dir)).toThrow(`${join(dir, "study.json")}: no study here (create one with \`${cmd} annotate create\`)`);
  });
});
