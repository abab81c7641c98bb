/**
 * The operator verbs as real CLI processes on an embedded ledger prepared by the test
 * (a DUPLICATE, a LOST and an ORPHANED finding, a record on a branch): `findings list`,
 * `resolve accept|escalate|compensate|redispatch`, `deny add|lift`, `branch cancel` — exit
 * codes (0 ok, 2 bad input or illegal resolution, 3 declared outcome) and `--json` shapes.
 */
import type { IntentContractInput } from "../../src/core/contract-input.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import { NO_CRASH_POINTS } from "../../src/engine/crash-points.js";
import { openIrrevon } from "../../src/engine/irrevon.js";
import { createRefdest, startRefdestServer, type RefdestServer } from "../../src/refdest/index.js";
import { jsonOf, runCli, type CliRun } from "../support/cli.js";

const CONFIG = `schema_version = "1"

[ledger]
data_dir = "ledger"

[adapters.refdest-c2]
kind = "refdest"
tier = "C2"
url_env = "IRREVON_REFDEST_URL"
`;

function contract(orderId: string, extra: Record<string, unknown> = {}): IntentContractInput {
  return {
    schema_version: "1",
    stable_ids: { order_id: orderId },
    effect_type: "order.create",
    scope: "acme-store/prod",
    effect_class: "IRREVERSIBLE",
    adapter_id: "refdest-c2",
    parameters: { order: orderId },
    authority_ref: "auth_cli_test",
    stamped_at: new Date().toISOString(),
    ...extra,
  };
}

describe("CLI operator verbs [pglite data dir]", () => {
  let dir: string;
  let server: RefdestServer;
  const ids = { duplicate: 0, lost: 0, orphan: 0, lostEffect: "", branchEffect: "" };
  let run: (args: string[]) => Promise<CliRun>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "irrevon-cli-operator-"));
    writeFileSync(join(dir, "irrevon.toml"), CONFIG);
    server = await startRefdestServer(createRefdest({ tier: "C2", seed: 42 }));
    const env = {
      IRREVON_REFDEST_URL: server.url,
      IRREVON_CONFIG: join(dir, "irrevon.toml"),
      DATABASE_URL: "",
    };
    run = (args) => runCli(args, { cwd: dir, env });
    const irrevon = await openIrrevon({
      database: { dataDir: join(dir, "ledger") },
      adapters: [
        new RefdestAdapter({ baseUrl: server.url, declaration: refdestDeclaration("C2") }),
      ],
      config: { rereadGapSeconds: 0, orphanGraceSeconds: 0, dispatchDeadlineMs: 1_000 },
      crashPoints: NO_CRASH_POINTS,
      workerId: "cli-operator-setup",
    });
    try {
      const dup = await irrevon.register(contract("dup-1", { scope: "acme-store/a" }));
      server.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
      await irrevon.dispatch(dup.effectId);
      server.refdest.createOutOfBand({
        effect_type: "order.create",
        payload: {},
        client_ref: dup.operationId,
      });
      const d = await irrevon.reconcile(dup.effectId);
      if (d.status !== "committed" || d.findingId === null) throw new Error("no DUPLICATE");
      ids.duplicate = d.findingId;

      const lost = await irrevon.register(contract("lost-1", { scope: "acme-store/b" }));
      server.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
      await irrevon.dispatch(lost.effectId);
      // The absence rule: a dropped connection does not end the server's work, so ABSENT
      // counts only from the call's commit horizon (start + the 1 s dispatch deadline). The
      // engine runs on real time here: wait for the horizon the engine names, then reconcile.
      let l = await irrevon.reconcile(lost.effectId);
      for (let i = 0; i < 5 && l.status === "awaiting_lag"; i += 1) {
        const wait = Date.parse(l.notBefore) - Date.now() + 50;
        await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 50)));
        l = await irrevon.reconcile(lost.effectId);
      }
      if (l.status !== "failed" || l.findingId === null) throw new Error("no LOST");
      ids.lost = l.findingId;
      ids.lostEffect = lost.effectId;

      server.refdest.createOutOfBand({ effect_type: "order.create", payload: {} });
      await irrevon.sweep("refdest-c2");
      const [orphanId] = (await irrevon.sweep("refdest-c2")).orphansCreated;
      if (orphanId === undefined) throw new Error("no ORPHANED");
      ids.orphan = orphanId;

      ids.branchEffect = (
        await irrevon.register(
          contract("branch-1", { scope: "acme-store/c", branch_ref: "plan-7" }),
        )
      ).effectId;
    } finally {
      await irrevon.close();
    }
  }, 120_000);
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "findings list: all, by class, by status and effect; bad filters exit 2",
    { timeout: 60_000 },
    async () => {
      const all = await run(["findings", "list", "--json"]);
      expect(all.code).toBe(0);
      const doc = jsonOf(all);
      expect(doc).toMatchObject({ schema_version: "1", count: 3 });
      const findings = doc["findings"] as Array<Record<string, unknown>>;
      expect(findings.map((f) => f["classification"])).toEqual(["DUPLICATE", "LOST", "ORPHANED"]);
      expect(Object.keys(findings[0] ?? {}).sort()).toEqual(
        [
          "adapter_id",
          "classification",
          "created_at",
          "created_by",
          "destination_ref",
          "effect_id",
          "evidence",
          "excess_effect_count",
          "finding_id",
          "status",
        ].sort(),
      );
      expect(findings[2]).toMatchObject({ effect_id: null, created_by: "sweep", status: "OPEN" });

      const dup = jsonOf(await run(["findings", "list", "--class", "duplicate", "--json"]));
      expect(dup).toMatchObject({
        count: 1,
        findings: [{ finding_id: ids.duplicate, excess_effect_count: 1 }],
      });
      const lost = jsonOf(
        await run(["findings", "list", "--status", "OPEN", "--effect", ids.lostEffect, "--json"]),
      );
      expect(lost).toMatchObject({
        count: 1,
        findings: [{ finding_id: ids.lost, classification: "LOST" }],
      });

      const bad = await run(["findings", "list", "--class", "MAYBE"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split("\n")).toHaveLength(1);
      expect(bad.stderr).toMatch(/^irrevon: usage: --class/);
    },
  );

  it(
    "resolve: a DUPLICATE is never re-dispatched (exit 2), also after escalate; accept closes; unknown finding exits 3",
    { timeout: 90_000 },
    async () => {
      const redispatch = [
        "resolve",
        "redispatch",
        String(ids.duplicate),
        "--note",
        "resend",
        "--authority-ref",
        "auth_x",
        "--json",
      ];
      const refused = await run(redispatch);
      expect(refused.code).toBe(2);
      expect(jsonOf(refused)).toMatchObject({ error: { code: "resolution_invalid" } });

      const escalated = await run([
        "resolve",
        "escalate",
        String(ids.duplicate),
        "--note",
        "ask finance",
        "--json",
      ]);
      expect(escalated.code).toBe(0);
      expect(jsonOf(escalated)).toEqual({
        schema_version: "1",
        finding_id: ids.duplicate,
        classification: "DUPLICATE",
        action: "ESCALATED_HUMAN",
        from: "OPEN",
        status: "ESCALATED_HUMAN",
        closed: false,
        resolution_seqs: expect.any(Array) as unknown,
      });
      expect((await run(redispatch)).code).toBe(2);

      const accepted = await run([
        "resolve",
        "accept",
        String(ids.orphan),
        "--note",
        "a test order",
        "--json",
      ]);
      expect(accepted.code).toBe(0);
      expect(jsonOf(accepted)).toMatchObject({
        action: "ACCEPTED_AS_IS",
        status: "CLOSED",
        closed: true,
      });
      expect((await run(["resolve", "accept", String(ids.orphan), "--note", "again"])).code).toBe(
        2,
      );

      const missing = await run(["resolve", "accept", "999999", "--note", "x", "--json"]);
      expect(missing.code).toBe(3);
      expect(jsonOf(missing)).toMatchObject({ error: { code: "not_found" } });
      const unregistered = await run([
        "resolve",
        "compensate",
        String(ids.duplicate),
        "--note",
        "c",
        "--compensating-effect",
        "e".repeat(64),
      ]);
      expect(unregistered.code).toBe(2);
      expect(unregistered.stderr).toMatch(/^irrevon: resolution_invalid:/);
      const noNote = await run(["resolve", "accept", String(ids.duplicate)]);
      expect(noNote.code).toBe(2);
      expect((await run(["resolve", "accept", "12abc", "--note", "x"])).code).toBe(2);
    },
  );

  it(
    "resolve redispatch of a LOST finding sends the replacement once and closes",
    { timeout: 60_000 },
    async () => {
      const before = server.refdest.truthDump().effects.length;
      const out = await run([
        "resolve",
        "redispatch",
        String(ids.lost),
        "--note",
        "customer confirmed",
        "--authority-ref",
        "auth_ops_3",
        "--json",
      ]);
      expect(out.code).toBe(0);
      expect(jsonOf(out)).toMatchObject({
        action: "REDISPATCHED",
        status: "CLOSED",
        closed: true,
        redispatch: {
          operation_id: `${ids.lostEffect}:1`,
          fresh_probe: false,
          dispatch: { status: "dispatched", lifecycle: "SETTLED_COMMITTED" },
        },
      });
      expect(server.refdest.truthDump().effects.length).toBe(before + 1);
    },
  );

  it(
    "deny add/lift and branch cancel: ids, shapes, lift twice exits 3",
    { timeout: 90_000 },
    async () => {
      const added = await run([
        "deny",
        "add",
        "--effect-type",
        "order.create",
        "--scope",
        "acme-store/prod",
        "--reason",
        "freeze",
        "--json",
      ]);
      expect(added.code).toBe(0);
      const doc = jsonOf(added);
      expect(doc).toMatchObject({
        effect_type: "order.create",
        scope: "acme-store/prod",
        effect_class: null,
        reason: "freeze",
      });
      const denyId = Number(doc["deny_id"]);
      expect(denyId).toBeGreaterThan(0);
      expect((await run(["deny", "add", "--reason", "nothing named", "--json"])).code).toBe(2);
      expect(
        (await run(["deny", "add", "--effect-class", "SOMETIMES", "--reason", "x"])).code,
      ).toBe(2);

      const lifted = await run(["deny", "lift", String(denyId), "--json"]);
      expect(lifted.code).toBe(0);
      expect(jsonOf(lifted)).toMatchObject({
        deny_id: denyId,
        lift_id: expect.any(Number) as unknown,
      });
      const again = await run(["deny", "lift", String(denyId), "--json"]);
      expect(again.code).toBe(3);
      expect(jsonOf(again)).toMatchObject({ error: { code: "illegal_state" } });

      const cancelled = await run([
        "branch",
        "cancel",
        "plan-7",
        "--reason",
        "plan abandoned",
        "--cancel-persisted",
        "--json",
      ]);
      expect(cancelled.code).toBe(0);
      expect(jsonOf(cancelled)).toMatchObject({
        branch_ref: "plan-7",
        cancelled_executions: [expect.any(Number)],
      });
      const missingReason = await run(["branch", "cancel", "plan-8"]);
      expect(missingReason.code).toBe(2);
      expect(missingReason.stderr).toMatch(/--reason/);
    },
  );
});
