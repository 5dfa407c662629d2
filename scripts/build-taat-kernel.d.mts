/** The TAAT kernel's bytes as base64, compiled from retrieval/bm25/taat-kernel.wat with wabt. */
export function compileTaatKernel(): Promise<string>;
/** The text of retrieval/bm25/taat-kernel-bytes.ts holding `b64`. */
export function kernelModule(b64: string): string;
