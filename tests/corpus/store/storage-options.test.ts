/** Object-storage URIs and storage options reach LanceDB unchanged (no S3 server installs offline here: the connect call is observed). */
import { describe, expect, it } from "vitest";
import type * as LanceDb from "@lancedb/lancedb";
import { Session } from "@lancedb/lancedb";
import { connectStore, describeCleanDifference, openLanceRecordStore, storeUriOf, type ConnectFn } from "../../../corpus/store/lance-store.ts";
import { storageOptionsFromEnv } from "../../../corpus/corpus-file.ts";

function recordingConnect(calls: { uri: string; options: unknown }[]): ConnectFn {
  return async (uri, options) => {
    calls.push({ uri, options });
    // A database with no tables: enough for openLanceRecordStore to say there is no store.
    return { tableNames: async () => [] } as unknown as LanceDb.Connection;
  };
}

describe("corpus store locations", () => {
  it("passes s3/gs/az URIs and storage options through to LanceDB's connect", async () => {
    const calls: { uri: string; options: unknown }[] = [];
    const opts = { aws_endpoint: "http://127.0.0.1:9000", aws_region: "eu-west-1", aws_access_key_id: "AK", aws_secret_access_key: "SK", allow_http: "true" };
    await connectStore({ uri: "s3://team-bucket/medsynth/corpus", storageOptions: opts }, recordingConnect(calls));
    await connectStore({ uri: "gs://bucket/c" }, recordingConnect(calls));
    await expect(openLanceRecordStore({ uri: "az://container/c", storageOptions: { azure_storage_account_name: "acct" } }, recordingConnect(calls))).rejects.toThrow(
      /az:\/\/container\/c: no medsynth corpus store here/,
    );
    expect(calls).toEqual([
      { uri: "s3://team-bucket/medsynth/corpus", options: { storageOptions: opts } },
      { uri: "gs://bucket/c", options: {} },
      // Opened for reading: with its bounded read caches, in the options (where LanceDB reads them).
      { uri: "az://container/c", options: { storageOptions: { azure_storage_account_name: "acct" }, session: expect.any(Session) } },
    ]);
  });

  it("recognises store arguments and storage options from the environment", () => {
    expect(storeUriOf("lance:/data/corpus")).toBe("/data/corpus");
    expect(storeUriOf("s3://b/p")).toBe("s3://b/p");
    expect(storeUriOf("gs://b/p")).toBe("gs://b/p");
    expect(storeUriOf("bundled")).toBeNull();
    expect(storeUriOf("corpus.jsonl")).toBeNull();
    expect(storageOptionsFromEnv({ MEDSYNTH_STORAGE_OPTIONS: '{"aws_region":"us-east-1"}' })).toEqual({ aws_region: "us-east-1" });
    expect(storageOptionsFromEnv({})).toBeUndefined();
    expect(() => storageOptionsFromEnv({ MEDSYNTH_STORAGE_OPTIONS: '{"n":1}' })).toThrow(/object of string values/);
  });

  it("names the cleaning options that differ", () => {
    expect(describeCleanDifference({ language: "eng", minSegments: 3 }, { language: null, minSegments: 3 })).toBe('language: store "eng", this run null');
    expect(describeCleanDifference({ a: 1 }, { a: 1 })).toBeNull();
    expect(describeCleanDifference(null, null)).toBeNull();
  });
});
