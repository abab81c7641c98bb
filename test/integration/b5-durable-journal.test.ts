/**
 * Baseline B5 (durable journal, stable operation id) over the real wire: a lost response is
 * journaled and retried with the same key, and against a C2 destination the retry makes a
 * second effect; a call that cannot be sent, or that times out, is journaled as a failed
 * transport with the transport's reason, never thrown.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { B5DurableJournalRuntime } from "../../src/bench/baselines/b5-durable-journal.js";
import { startRefdestServer } from "../../src/refdest/http-server.js";
import { Refdest } from "../../src/refdest/refdest.js";

describe("B5 durable-journal runtime", () => {
  const refdest = new Refdest({ tier: "C2", seed: 5 });
  let server: Awaited<ReturnType<typeof startRefdestServer>>;
  const dir = mkdtempSync(join(tmpdir(), "irrevon-b5-"));

  beforeAll(async () => {
    server = await startRefdestServer(refdest, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("retries a lost response with the same key: two effects at a C2 destination", async () => {
    const journalPath = join(dir, "lost.jsonl");
    refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    const id = B5DurableJournalRuntime.operationId("wf-1", 0);
    const first = await new B5DurableJournalRuntime({ destinationUrl: server.url, journalPath }).runActivity(id, "order.create", { sku: "A" });
    expect(first.kind).toBe("response_lost");
    const restarted = new B5DurableJournalRuntime({ destinationUrl: server.url, journalPath });
    expect(restarted.journal().map((e) => e.kind)).toEqual(["started", "failed_transport"]);
    const retried = await restarted.recover();
    expect(retried.map((r) => [r.operationId, r.outcome.kind])).toEqual([[id, "completed"]]);
    expect(refdest.truthDump().effects.filter((e) => e.effect_type === "order.create")).toHaveLength(2);
  });

  it("journals a call that cannot be sent or times out instead of throwing", async () => {
    const journalPath = join(dir, "unsent.jsonl");
    const bad = new B5DurableJournalRuntime({ destinationUrl: "not a url", journalPath });
    await expect(bad.runActivity("wf-2", "order.create", {})).resolves.toMatchObject({ kind: "response_lost", reason: "TypeError" });
    refdest.schedule([{ fault: "DELAY", match: { op: "create" }, param: { ms: 2_000 } }]);
    const slow = new B5DurableJournalRuntime({ destinationUrl: server.url, journalPath, deadlineMs: 200 });
    await expect(slow.runActivity("wf-3", "order.create", {})).resolves.toMatchObject({ kind: "response_lost", reason: "timeout" });
    expect(slow.journal().filter((e) => e.kind === "failed_transport").map((e) => (e as { reason: string }).reason)).toEqual(["TypeError", "timeout"]);
  });
});
