/**
 * Intent contract (reference §1.1/§1.2): every member and limit, the closed member list,
 * RFC 3339 timestamps, the sorted error list, and the shape of a ValidatedIntent.
 */
import { describe, expect, it } from "vitest";
import { canonicalDigest } from "../../src/core/canonical.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { CONTRACT_LIMITS } from "../../src/core/contract-schema.js";
import { isModelTainted, revealForAdapter } from "../../src/core/taint.js";
import { V2_INTENT_ID, expectContractError, validContract } from "./helpers/contracts.js";

type Mutate = (c: Record<string, unknown>) => void;

function manyIds(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
}

const rejected: Array<[string, Mutate, string, string, string]> = [
  // [name, mutation, path, limit, value kind]
  ["schema_version 2", (c) => (c["schema_version"] = "2"), "$.schema_version", "const", "string"],
  [
    "schema_version number",
    (c) => (c["schema_version"] = 1),
    "$.schema_version",
    "const",
    "integer",
  ],
  [
    "schema_version missing",
    (c) => delete c["schema_version"],
    "$.schema_version",
    "required",
    "undefined",
  ],
  ["stable_ids {}", (c) => (c["stable_ids"] = {}), "$.stable_ids", "min_properties", "object"],
  [
    "stable_ids 33 members",
    (c) => (c["stable_ids"] = manyIds(33)),
    "$.stable_ids",
    "max_properties",
    "object",
  ],
  ["stable_ids array", (c) => (c["stable_ids"] = ["x"]), "$.stable_ids", "type", "array"],
  ["stable_ids missing", (c) => delete c["stable_ids"], "$.stable_ids", "required", "undefined"],
  [
    "stable-id key empty",
    (c) => (c["stable_ids"] = { "": "x" }),
    '$.stable_ids[""]',
    "property_name.min_length",
    "string",
  ],
  [
    "stable-id key 129",
    (c) => (c["stable_ids"] = { ["k".repeat(129)]: "x" }),
    `$.stable_ids["${"k".repeat(129)}"]`,
    "property_name.max_length",
    "string",
  ],
  [
    "stable-id value null",
    (c) => (c["stable_ids"] = { order_id: null }),
    "$.stable_ids.order_id",
    "type",
    "null",
  ],
  [
    "stable-id value number",
    (c) => (c["stable_ids"] = { order_id: 9410 }),
    "$.stable_ids.order_id",
    "type",
    "integer",
  ],
  [
    "stable-id value empty",
    (c) => (c["stable_ids"] = { order_id: "" }),
    "$.stable_ids.order_id",
    "min_length",
    "string",
  ],
  [
    "stable-id value 513",
    (c) => (c["stable_ids"] = { order_id: "v".repeat(513) }),
    "$.stable_ids.order_id",
    "max_length",
    "string",
  ],
  ["effect_type empty", (c) => (c["effect_type"] = ""), "$.effect_type", "min_length", "string"],
  [
    "effect_type 257",
    (c) => (c["effect_type"] = "e".repeat(257)),
    "$.effect_type",
    "max_length",
    "string",
  ],
  ["effect_type object", (c) => (c["effect_type"] = {}), "$.effect_type", "type", "object"],
  ["scope empty", (c) => (c["scope"] = ""), "$.scope", "min_length", "string"],
  ["scope 513", (c) => (c["scope"] = "s".repeat(513)), "$.scope", "max_length", "string"],
  [
    "effect_class UNDOABLE",
    (c) => (c["effect_class"] = "UNDOABLE"),
    "$.effect_class",
    "enum",
    "string",
  ],
  [
    "effect_class lowercase",
    (c) => (c["effect_class"] = "irreversible"),
    "$.effect_class",
    "enum",
    "string",
  ],
  ["adapter_id missing", (c) => delete c["adapter_id"], "$.adapter_id", "required", "undefined"],
  ["adapter_id empty", (c) => (c["adapter_id"] = ""), "$.adapter_id", "min_length", "string"],
  [
    "adapter_id 257",
    (c) => (c["adapter_id"] = "a".repeat(257)),
    "$.adapter_id",
    "max_length",
    "string",
  ],
  ["parameters missing", (c) => delete c["parameters"], "$.parameters", "required", "undefined"],
  ["parameters array", (c) => (c["parameters"] = []), "$.parameters", "type", "array"],
  ["parameters null", (c) => (c["parameters"] = null), "$.parameters", "type", "null"],
  [
    "parameters 257 members",
    (c) => (c["parameters"] = manyIds(257)),
    "$.parameters",
    "max_properties",
    "object",
  ],
  [
    "nested object 257 members",
    (c) => (c["parameters"] = { o: manyIds(257) }),
    "$.parameters.o",
    "max_properties",
    "object",
  ],
  [
    "parameter integer 2^80",
    (c) => (c["parameters"] = { n: 2 ** 80 }),
    "$.parameters.n",
    "safe_integer",
    "integer",
  ],
  [
    "authority_ref empty",
    (c) => (c["authority_ref"] = ""),
    "$.authority_ref",
    "min_length",
    "string",
  ],
  [
    "authority_ref 513",
    (c) => (c["authority_ref"] = "a".repeat(513)),
    "$.authority_ref",
    "max_length",
    "string",
  ],
  ["stamped_at missing", (c) => delete c["stamped_at"], "$.stamped_at", "required", "undefined"],
  [
    "stamped_at Feb 30",
    (c) => (c["stamped_at"] = "2026-02-30T00:00:00Z"),
    "$.stamped_at",
    "format",
    "string",
  ],
  [
    "stamped_at no offset",
    (c) => (c["stamped_at"] = "2026-01-15T09:30:00"),
    "$.stamped_at",
    "format",
    "string",
  ],
  [
    "stamped_at date only",
    (c) => (c["stamped_at"] = "2026-01-15"),
    "$.stamped_at",
    "format",
    "string",
  ],
  [
    "stamped_at epoch number",
    (c) => (c["stamped_at"] = 1_767_225_600),
    "$.stamped_at",
    "type",
    "integer",
  ],
  ["branch_ref null", (c) => (c["branch_ref"] = null), "$.branch_ref", "type", "null"],
  ["branch_ref empty", (c) => (c["branch_ref"] = ""), "$.branch_ref", "min_length", "string"],
  [
    "branch_ref 513",
    (c) => (c["branch_ref"] = "b".repeat(513)),
    "$.branch_ref",
    "max_length",
    "string",
  ],
  ["event_time bad", (c) => (c["event_time"] = "yesterday"), "$.event_time", "format", "string"],
  [
    "event_time 2025-02-29",
    (c) => (c["event_time"] = "2025-02-29T00:00:00Z"),
    "$.event_time",
    "format",
    "string",
  ],
  [
    "undeclared model_generated_arguments",
    (c) => (c["model_generated_arguments"] = { a: 1 }),
    "$.model_generated_arguments",
    "additional_properties",
    "object",
  ],
  [
    "undeclared intent_id",
    (c) => (c["intent_id"] = V2_INTENT_ID),
    "$.intent_id",
    "additional_properties",
    "string",
  ],
];

describe("intent contract: rejections", () => {
  it.each(rejected)("%s", (_name, mutate, path, limit, kind) => {
    const contract = validContract();
    mutate(contract);
    expectContractError(() => validateIntentContract(contract), { path, limit, kind });
  });

  it.each([null, [], "contract", 7, true])("non-object %j → $ type", (raw) => {
    expectContractError(() => validateIntentContract(raw), { path: "$", limit: "type" });
  });

  it("an own __proto__ member (from JSON.parse) is an undeclared member", () => {
    const raw = JSON.parse(
      JSON.stringify(validContract()).replace(/^\{/, '{"__proto__":{"x":1},'),
    ) as unknown;
    expectContractError(() => validateIntentContract(raw), {
      path: "$.__proto__",
      limit: "additional_properties",
    });
  });

  it("lists every schema issue sorted by path; the top-level fields describe the first", () => {
    const contract = validContract();
    contract["scope"] = "";
    contract["effect_class"] = "UNDOABLE";
    contract["stable_ids"] = { b: null, a: "" };
    contract["zzz"] = 1;
    const error = expectContractError(() => validateIntentContract(contract), {
      path: "$.effect_class",
      limit: "enum",
      kind: "string",
    });
    const errors = error.details["errors"] as Array<{ path: string; message: string }>;
    expect(errors.map((e) => e.path)).toEqual([
      "$.effect_class",
      "$.scope",
      "$.stable_ids.a",
      "$.stable_ids.b",
      "$.zzz",
    ]);
    for (const e of errors) expect(Object.keys(e).sort()).toEqual(["message", "path"]);
  });
});

describe("intent contract: accepted limits", () => {
  const accepted: Array<[string, Mutate]> = [
    ["32 stable ids", (c) => (c["stable_ids"] = manyIds(32))],
    [
      "128-char key, 512-char value",
      (c) => (c["stable_ids"] = { ["k".repeat(128)]: "v".repeat(512) }),
    ],
    ["512 astral characters count as 512", (c) => (c["stable_ids"] = { k: "😀".repeat(512) })],
    [
      "256-char effect_type, 512-char scope",
      (c) => Object.assign(c, { effect_type: "e".repeat(256), scope: "s".repeat(512) }),
    ],
    ["256 parameters", (c) => (c["parameters"] = manyIds(256))],
    ["empty parameters", (c) => (c["parameters"] = {})],
    [
      "branch_ref and event_time",
      (c) => Object.assign(c, { branch_ref: "b".repeat(512), event_time: "2024-02-29T23:59:60Z" }),
    ],
    ["offset and fraction", (c) => (c["stamped_at"] = "2026-01-15T10:30:00.123456+01:00")],
    ["lowercase t and z", (c) => (c["stamped_at"] = "2026-01-15t09:30:00z")],
  ];
  it.each(accepted)("%s", (_name, mutate) => {
    const contract = validContract();
    mutate(contract);
    expect(() => validateIntentContract(contract)).not.toThrow();
  });

  it("the limits table holds the reference numbers", () => {
    expect(CONTRACT_LIMITS).toMatchObject({
      stableIdsMaxProperties: 32,
      stableIdKeyMaxChars: 128,
      stableIdValueMaxChars: 512,
      effectTypeMaxChars: 256,
      scopeMaxChars: 512,
      adapterIdMaxChars: 256,
      authorityRefMaxChars: 512,
      branchRefMaxChars: 512,
      parametersMaxProperties: 256,
    });
  });
});

describe("ValidatedIntent", () => {
  it("maps every member and derives identity and parameters digest", () => {
    const contract = validContract();
    const intent = validateIntentContract(contract);
    expect(intent.schemaVersion).toBe("1");
    expect(intent.stableIds).toEqual({ order_id: "9410", customer_ref: "C-0007" });
    expect(intent.effectType).toBe("order.create");
    expect(intent.scope).toBe("acme-store/prod");
    expect(intent.effectClass).toBe("IRREVERSIBLE");
    expect(intent.adapterId).toBe("refdest-c2");
    expect(intent.authorityRef).toBe("auth_approved_task_18");
    expect(intent.stampedAt).toBe("2026-01-15T09:30:00Z");
    expect(intent.branchRef).toBeNull();
    expect(intent.eventTime).toBeNull();
    expect(intent.identity.intentId).toBe(V2_INTENT_ID);
    expect(intent.parametersDigest).toBe(canonicalDigest(contract["parameters"]));
    expect(isModelTainted(intent.parameters)).toBe(true);
    expect(revealForAdapter(intent.parameters)).toEqual(contract["parameters"]);
    expect(Object.isFrozen(intent)).toBe(true);
  });

  it("matches the reference demo digest for the original parameters", () => {
    expect(validateIntentContract(validContract()).parametersDigest).toBe(
      "sha256:c11f201bdcaf3470b2fbea97ac111bd09bcc314d5b3745b57d54cd96b7c4bf6b",
    );
  });

  it("keeps stamped_at, branch_ref and event_time as given", () => {
    const intent = validateIntentContract({
      ...validContract(),
      stamped_at: "2026-01-15T10:30:00+01:00",
      branch_ref: "branch-7",
      event_time: "2026-01-15T09:29:59.5Z",
    });
    expect(intent.stampedAt).toBe("2026-01-15T10:30:00+01:00");
    expect(intent.branchRef).toBe("branch-7");
    expect(intent.eventTime).toBe("2026-01-15T09:29:59.5Z");
  });

  it("parameters are a frozen copy: later edits to the input change nothing", () => {
    const contract = validContract();
    const intent = validateIntentContract(contract);
    (contract["parameters"] as Record<string, unknown>)["note"] = "changed";
    const revealed = revealForAdapter(intent.parameters) as Record<string, unknown>;
    expect(revealed["note"]).toBe("please deliver to the loading dock");
    expect(Object.isFrozen(revealed)).toBe(true);
    expect(Object.isFrozen((revealed["line_items"] as unknown[])[0])).toBe(true);
  });

  it("the re-synthesized demo parameters give the reference variant digest and the same id", () => {
    const intent = validateIntentContract({
      ...validContract(),
      parameters: {
        items: [{ sku: "SKU-118", qty: 2, gift_wrap: false }],
        shipping: { method: "standard", priority: "normal" },
        customer_note: "Deliver at loading dock please!",
      },
      authority_ref: "auth_approved_task_22",
    });
    expect(intent.parametersDigest).toBe(
      "sha256:074abd639c1ad62f7ad769c6261bfa1f7b93021f8171644ebe3d4ce3df98c2cd",
    );
    expect(intent.identity.intentId).toBe(V2_INTENT_ID);
  });
});
