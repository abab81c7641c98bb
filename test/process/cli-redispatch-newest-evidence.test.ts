/**
 * Issue 14 item 1 as a user meets it, with real processes and the reference destination over
 * HTTP: a LOST finding (two ABSENT reads), then the order surfaces at the destination and an
 * audit records CONTRADICTED `failed_but_present`; `irrevon resolve redispatch` on the LOST
 * finding, run as a real CLI process, must be refused with `resolution_invalid` (exit 2) while
 * the ABSENT reads are still fresh — and the destination must still hold exactly one order.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { manualClock } from "../../src/engine/clock.js";
import { DEFAULT_ENGINE_CONFIG } from "../../src/engine/config.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { jsonOf, runCli } from "../support/cli.js";

const CONFIG = `schema_version = "1"

[ledger]
data_dir = "ledger"

[adapters.refdest-c2]
kind = "refdest"
tier = "C2"
url_env = "IRREVON_REFDEST_URL"
`;

describe("resolve redispatch on the newest evidence [pglite data dir, refdest over HTTP]", () => {
  let dir: string;
  let server: RefdestServer;
  const ids = { lost: 0, contradicted: 0, effectId: "" };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-redispatch-newest-"));
    writeFileSync(join(dir, "irrevon.toml"), CONFIG);
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 7 }));
    // A test offset on the database clock, so the setup need not wait out the call's deadline.
    const clock = manualClock();
    const irrevon = await openIrrevon({
      database: { dataDir: join(dir, "ledger") },
      adapters: [
        new RefdestAdapter({ baseUrl: server.url, declaration: refdestDeclaration("C2") }),
      ],
      clock,
      config: { rereadGapSeconds: 0 },
      crashPoints: NO_CRASH_POINTS,
      workerId: "newest-evidence-setup",
    });
    try {
      const { effectId, operationId } = await irrevon.register({
        schema_version: "1",
        stable_ids: { order_id: "surfaced-1" },
        effect_type: "order.create",
        scope: "acme-store/prod",
        effect_class: "IRREVERSIBLE",
        adapter_id: "refdest-c2",
        parameters: { order: "surfaced-1" },
        authority_ref: "auth_cli_test",
        stamped_at: new Date().toISOString(),
      });
      ids.effectId = effectId;
      server.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
      await irrevon.dispatch(effectId);
      // The absence rule: a dropped call's deadline still counts, so absence counts only once
      // the clock is past it (docs/engine.md, "The absence rule"; declared lag PT0S).
      clock.advance(DEFAULT_ENGINE_CONFIG.dispatchDeadlineMs);
      const settled = await irrevon.reconcile(effectId);
      if (settled.status !== "failed" || settled.findingId === null) throw new Error("no LOST");
      ids.lost = settled.findingId;
      // The request surfaces at the destination after absence was proven.
      server.refdest.createOutOfBand({
        effect_type: "order.create",
        payload: { order: "surfaced-1" },
        client_ref: operationId,
      });
      const audit = await irrevon.audit(effectId);
      if (audit.status !== "finding" || audit.classification !== "CONTRADICTED")
        throw new Error(`audit did not contradict: ${JSON.stringify(audit)}`);
      ids.contradicted = audit.findingId;
    } finally {
      await irrevon.close();
    }
  }, 120_000);
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "refuses the re-dispatch (exit 2, resolution_invalid) and sends nothing",
    { timeout: 90_000 },
    async () => {
      const env = {
        IRREVON_REFDEST_URL: server.url,
        IRREVON_CONFIG: join(dir, "irrevon.toml"),
        DATABASE_URL: "",
      };
      const before = server.refdest.truthDump().effects.length;
      expect(before).toBe(1);
      const out = await runCli(
        [
          "resolve",
          "redispatch",
          String(ids.lost),
          "--note",
          "customer says it never arrived",
          "--authority-ref",
          "auth_ops_14",
          "--json",
        ],
        { cwd: dir, env },
      );
      expect(out.code, out.stdout + out.stderr).toBe(2);
      expect(jsonOf(out)).toMatchObject({
        error: {
          code: "resolution_invalid",
          details: { refusal: "present_at_destination", contradicted_finding_id: ids.contradicted },
        },
      });
      expect(server.refdest.truthDump().effects.length).toBe(before);
      const listed = await runCli(["findings", "list", "--effect", ids.effectId, "--json"], {
        cwd: dir,
        env,
      });
      expect(listed.code).toBe(0);
      const findings = jsonOf(listed)["findings"] as Array<Record<string, unknown>>;
      expect(findings.map((f) => [f["classification"], f["status"]])).toEqual([
        ["LOST", "OPEN"],
        ["CONTRADICTED", "OPEN"],
      ]);
    },
  );
});
