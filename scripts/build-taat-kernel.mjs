#!/usr/bin/env node
/**
 * Compiles the TAAT accumulation kernel `retrieval/bm25/taat-kernel.wat` with wabt (the WebAssembly
 * Binary Toolkit, devDependency) and writes its bytes as base64 into
 * `retrieval/bm25/taat-kernel-bytes.ts`, the file the engine loads (no WebAssembly toolchain at run
 * time). tests/retrieval/bm25-taat-kernel.test.ts checks that the committed bytes are this script's
 * output. Usage: `node scripts/build-taat-kernel.mjs [--check]` (`--check`: exit 1 if the file is stale).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The kernel's bytes as base64, compiled from the .wat source. */
export async function compileTaatKernel() {
  const wabt = await (await import("wabt")).default();
  const wat = fileURLToPath(new URL("../retrieval/bm25/taat-kernel.wat", import.meta.url));
  const mod = wabt.parseWat("taat-kernel.wat", readFileSync(wat, "utf8"));
  mod.validate();
  const { buffer } = mod.toBinary({});
  mod.destroy();
  return Buffer.from(buffer).toString("base64");
}

/** The TypeScript module holding `b64`. */
export function kernelModule(b64) {
  return `/**
 * Bytes of the WebAssembly accumulation kernel of the quantised TAAT BM25 (fast-taat.ts), compiled
 * from taat-kernel.wat by \`node scripts/build-taat-kernel.mjs\` — generated, do not edit.
 */
export const TAAT_KERNEL_BASE64 =
  "${b64}";
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = fileURLToPath(new URL("../retrieval/bm25/taat-kernel-bytes.ts", import.meta.url));
  const text = kernelModule(await compileTaatKernel());
  if (process.argv.includes("--check")) {
    const same = readFileSync(out, "utf8") === text;
    console.log(same ? "taat-kernel-bytes.ts is up to date" : "taat-kernel-bytes.ts is stale: run node scripts/build-taat-kernel.mjs");
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
