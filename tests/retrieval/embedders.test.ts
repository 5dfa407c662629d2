import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIEmbedder } from "../../retrieval/embedders/openai.ts";
import { createEmbedder } from "../../retrieval/embedders/registry.ts";
import { hashedVector, startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

describe("OpenAI-compatible embedder (scripted /v1/embeddings)", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer([{}]);
  });
  afterAll(async () => {
    await server.close();
  });

  it("direct LangChain path: asks for float encoding, probes dims, returns the server's unit vectors", async () => {
    const e = await createOpenAIEmbedder({ model: "bge-m3", baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY" });
    expect(e.id).toBe("openai:bge-m3");
    expect(e.dims).toBe(8);
    const [v] = await e.embed(["heart attack"]);
    const ref = hashedVector("heart attack", 8);
    ref.forEach((x, i) => expect(v[i]).toBeCloseTo(x, 6));
    const bodies = server.requests.filter((r) => r.path.endsWith("/embeddings")).map((r) => r.body);
    expect(bodies.every((b) => b.encoding_format === "float")).toBe(true);
    expect(bodies.at(-1).model).toBe("bge-m3");
  });

  it("registry path goes through the models/ call layer (openai:<model>)", async () => {
    const n0 = server.requests.length;
    const e = await createEmbedder("openai:bge-m3", { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", cache: false });
    expect(e.id).toBe("openai:bge-m3");
    const [a, b] = await e.embed(["x", "y"]);
    hashedVector("y", 8).forEach((x, i) => expect(b[i]).toBeCloseTo(x, 6));
    expect(a).toHaveLength(8);
    expect(server.requests.length).toBeGreaterThan(n0);
  });
});
