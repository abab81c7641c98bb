/**
 * defineGuardedTool / toolResultForModel: definition errors are raised at definition time
 * (stable_id_not_in_schema names the field and lists the schema's fields; tool_definition_invalid
 * names the field); execute validates with the schema, stringifies numeric stable ids, refuses
 * object ones, passes everything else as parameters and calls run exactly once; annotations are
 * truthful per effect class; the model-facing object is JSON-safe and status-specific.
 * The engine is replaced by a recorder of run requests: the run itself is covered end to end by
 * test/integration/run.test.ts.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineGuardedTool, toolResultForModel } from "../../src/agent/guarded-tool.js";
import type { Irrevon } from "../../src/engine/irrevon.js";
import type { RunRequest, RunResult } from "../../src/engine/run-result.js";

const schema = z.object({
  order_id: z.union([z.string(), z.number()]),
  customer: z.unknown().optional(),
  sku: z.string(),
  quantity: z.number().int().positive(),
});

function recorder(): { irrevon: Irrevon; requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  const irrevon = {
    run: (request: RunRequest): Promise<RunResult> => {
      requests.push(request);
      return Promise.resolve({
        status: "committed",
        effectId: "e1",
        operationId: "e1:0",
        replayed: false,
        variant: null,
        modelMessage: "done",
        destinationRef: "d1",
        response: { http_status: 201 },
        evidence: "receipt",
      });
    },
  } as unknown as Irrevon;
  return { irrevon, requests };
}

const base = {
  name: "create_order",
  description: "Creates an order",
  inputSchema: schema,
  stableIds: ["order_id"] as const,
  effectType: "order.create",
  adapterId: "refdest-c2",
  scope: "acme-store/prod",
  authorityRef: "auth_task_18",
};

describe("defineGuardedTool", () => {
  it("refuses a stable id that is not a schema field, naming it and listing the fields", () => {
    const { irrevon } = recorder();
    expect(() =>
      defineGuardedTool(irrevon, { ...base, stableIds: ["orderId" as "order_id"] }),
    ).toThrow(
      expect.objectContaining({
        code: "stable_id_not_in_schema",
        details: { field: "orderId", schema_fields: ["order_id", "customer", "sku", "quantity"] },
      }),
    );
  });

  it.each([
    ["name", { name: "" }],
    ["description", { description: 3 }],
    ["effectType", { effectType: undefined }],
    ["adapterId", { adapterId: " " }],
    ["scope", { scope: null }],
    ["inputSchema", { inputSchema: { shape: {} } }],
    ["stableIds", { stableIds: [] }],
    ["effectClass", { effectClass: "MAYBE" }],
  ])("refuses a bad %s with tool_definition_invalid naming it", (field, patch) => {
    const { irrevon } = recorder();
    expect(() =>
      defineGuardedTool(irrevon, { ...base, ...(patch as object) } as typeof base),
    ).toThrow(expect.objectContaining({ code: "tool_definition_invalid", details: { field } }));
  });

  it("splits stable ids from parameters, stringifies numbers, resolves scope and authority", async () => {
    const { irrevon, requests } = recorder();
    const tool = defineGuardedTool(irrevon, {
      ...base,
      scope: (input) => `store/${input.sku}`,
      authorityRef: (input) => `auth/${String(input.order_id)}`,
      reconcileWithinMs: 500,
    });
    const signal = new AbortController().signal;
    const result = await tool.execute({ order_id: 9410, sku: "SKU-1", quantity: 2 }, { signal });
    expect(result.status).toBe("committed");
    expect(requests).toEqual([
      {
        effectType: "order.create",
        scope: "store/SKU-1",
        stableIds: { order_id: "9410" },
        parameters: { sku: "SKU-1", quantity: 2 },
        adapterId: "refdest-c2",
        effectClass: "IRREVERSIBLE",
        authorityRef: "auth/9410",
        reconcileWithinMs: 500,
        signal,
      },
    ]);
  });

  it("refuses input the schema rejects (payload_invalid) and an object stable id, calling nothing", async () => {
    const { irrevon, requests } = recorder();
    const tool = defineGuardedTool(irrevon, { ...base, stableIds: ["order_id", "customer"] });
    await expect(
      tool.execute({ order_id: "A1", sku: "S", quantity: -1 } as never),
    ).rejects.toMatchObject({ code: "payload_invalid", details: { field: "quantity" } });
    await expect(
      tool.execute({ order_id: "A1", customer: { id: 7 }, sku: "S", quantity: 1 }),
    ).rejects.toMatchObject({ code: "tool_definition_invalid", details: { field: "customer" } });
    await expect(tool.execute({ order_id: "A1", sku: "S", quantity: 1 })).rejects.toMatchObject({
      code: "tool_definition_invalid",
      details: { field: "customer" },
    });
    expect(requests).toHaveLength(0);
  });

  it("annotations: destructive unless IDEMPOTENT or REVERSIBLE; always idempotent and open-world", () => {
    const { irrevon } = recorder();
    const hints = (effectClass?: "IDEMPOTENT" | "REVERSIBLE" | "COMPENSABLE" | "IRREVERSIBLE") =>
      defineGuardedTool(irrevon, { ...base, ...(effectClass === undefined ? {} : { effectClass }) })
        .annotations;
    expect(hints()).toEqual({ destructiveHint: true, idempotentHint: true, openWorldHint: true });
    expect(hints("COMPENSABLE").destructiveHint).toBe(true);
    expect(hints("IDEMPOTENT").destructiveHint).toBe(false);
    expect(hints("REVERSIBLE").destructiveHint).toBe(false);
  });
});

describe("toolResultForModel", () => {
  const common = { effectId: "e1", operationId: "e1:0", modelMessage: "m" };
  it("maps each status to its JSON-safe fields", () => {
    const variant = { digest: "sha256:ab", changedFields: ["quantity"] };
    const cases: Array<[RunResult, Record<string, unknown>]> = [
      [
        {
          ...common,
          status: "committed",
          replayed: true,
          variant,
          destinationRef: "d",
          response: { a: 1 },
          evidence: "receipt",
        },
        {
          status: "committed",
          message: "m",
          effect_id: "e1",
          replayed: true,
          destination_ref: "d",
          response: { a: 1 },
          changed_fields: ["quantity"],
        },
      ],
      [
        {
          ...common,
          status: "denied",
          replayed: false,
          variant: null,
          check: "deny_list",
          reason: "deny_listed",
        },
        {
          status: "denied",
          message: "m",
          effect_id: "e1",
          replayed: false,
          check: "deny_list",
          reason: "deny_listed",
        },
      ],
      [
        {
          ...common,
          status: "failed",
          replayed: false,
          variant: null,
          retryable: true,
          reason: "RETRYABLE",
        },
        {
          status: "failed",
          message: "m",
          effect_id: "e1",
          replayed: false,
          retryable: true,
          reason: "RETRYABLE",
        },
      ],
      [
        {
          ...common,
          status: "ambiguous",
          replayed: false,
          variant: null,
          next: { action: "human", notBefore: null },
        },
        { status: "ambiguous", message: "m", effect_id: "e1", replayed: false },
      ],
    ];
    for (const [result, expected] of cases) {
      const out = toolResultForModel(result);
      expect(out).toEqual(expected);
      expect(JSON.parse(JSON.stringify(out))).toEqual(expected);
    }
  });
});
