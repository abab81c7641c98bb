/**
 * test/support/stub-adapter — an adapter made of plain functions under the reference
 * destination's C2 declaration (renamed `adapterId`, with optional declaration overrides such
 * as a read lag), for tests that script a destination's timing or answers directly: a create
 * that commits late, reads that lag or answer late, a listing with chosen times. Methods not
 * given answer as an empty destination (a create is LOST, a read ABSENT, a listing empty).
 */
import type { Adapter, CapabilityDeclaration } from "../../src/adapters/contract.js";
import { loadDeclaration } from "../../src/adapters/declaration.js";
import { REFDEST_C2_DECLARATION } from "../../src/adapters/declarations/refdest.js";

export type StubMethods = Partial<
  Pick<Adapter, "dispatch" | "statusQuery" | "listEffects" | "validatePayload">
>;

export function stubAdapter(
  adapterId: string,
  methods: StubMethods,
  declaration: Readonly<Record<string, unknown>> = {},
): Adapter {
  const declared: CapabilityDeclaration = loadDeclaration({
    ...REFDEST_C2_DECLARATION,
    ...declaration,
    adapter: adapterId,
  });
  return {
    adapterId,
    declare: () => declared,
    validatePayload: () => undefined,
    dispatch: async () => ({ transportOutcome: "LOST", evidence: {} }),
    statusQuery: async () => ({ result: "ABSENT", nFound: 0, destinationRefs: [], evidence: {} }),
    listEffects: async () => ({ effects: [], nextCursor: null }),
    ...methods,
  } as unknown as Adapter;
}
