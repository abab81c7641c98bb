/**
 * The demo's driver of an engine child process: a child that refuses to start says why on its
 * stdout (`REFUSED {error}`), and the error the demo then raises carries that reason instead of
 * only "exited before printing".
 */
import { describe, expect, it } from "vitest";
// The built client (npm test builds first): it spawns the engine child next to itself, and a
// compiled .js child runs under this worker's plain node, where a .ts one would not.
import { EngineChildClient } from "../../dist/src/cli/demo/engine-child-client.js";

describe("EngineChildClient", () => {
  it("reports the reason a child refused to start", async () => {
    // No IRREVON_REFDEST_URL: the child refuses at boot (config_invalid) and exits 3.
    const child = EngineChildClient.start({ IRREVON_REFDEST_URL: "", IRREVON_DATABASE_URL: "", IRREVON_DATA_DIR: "" });
    const error = await child.expectLine("RECOVERY DONE").then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const e = error as Error & { code: string; details: Record<string, unknown> };
    expect(e.code).toBe("internal");
    expect(e.message).toContain("exited (code 3");
    expect(e.message).toContain("config_invalid");
    expect(JSON.parse(String(e.details["refused"]))).toMatchObject({ error: { code: "config_invalid" } });
  }, 60_000);
});
