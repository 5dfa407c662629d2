/** Issue 13 item 11: native log lines stay off the terminal unless verbose. */
import { describe, expect, it } from "vitest";
import { quietNativeLogs } from "../../experiments/cli/main.ts";

describe("quietNativeLogs", () => {
  it("sets LANCEDB_LOG=error by default, leaves it alone with --verbose, MEDSYNTH_VERBOSE or a user's own level", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(quietNativeLogs(["node", "medsynth", "run", "x.yaml"], env)).toBe(true);
    expect(env.LANCEDB_LOG).toBe("error");
    const verbose: NodeJS.ProcessEnv = {};
    expect(quietNativeLogs(["node", "medsynth", "--verbose", "run", "x.yaml"], verbose)).toBe(false);
    expect(verbose.LANCEDB_LOG).toBe("warn");
    const byEnv: NodeJS.ProcessEnv = { MEDSYNTH_VERBOSE: "1" };
    expect(quietNativeLogs(["node", "medsynth"], byEnv)).toBe(false);
    const own: NodeJS.ProcessEnv = { LANCEDB_LOG: "debug" };
    expect(quietNativeLogs(["node", "medsynth"], own)).toBe(false);
    expect(own.LANCEDB_LOG).toBe("debug");
  });
});
