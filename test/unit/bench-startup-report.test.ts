/**
 * The startup section of the engine benchmark (src/bench/engine/startup): each goal is judged
 * from the numbers it reports (met / not met), and the Markdown lists every measurement.
 * The measurement itself runs only in `npm run bench:engine`; nothing here is timed.
 */
import { describe, expect, it } from "vitest";
import { judgeStartup, renderStartup, type StartupResult } from "../../src/bench/engine/startup.js";
import { summarize } from "../../src/bench/engine/stats.js";

const result = (over: Partial<StartupResult>): StartupResult => ({
  imageSource: "shipped",
  openFile: summarize([900, 1000, 1100]),
  openMemory: summarize([1200, 1300, 1400]),
  demo: [{ wallMs: 4000, peakRssMb: 320, contrastHolds: true }],
  cliHelp: summarize([120, 130]),
  notes: [],
  ...over,
});

describe("bench startup report", () => {
  it("judges every goal from its own figure", () => {
    const met = Object.fromEntries(judgeStartup(result({})).map((t) => [t.name, t.met]));
    expect(met).toEqual({
      "open a new embedded ledger (file, fresh process)": true,
      "open a new in-memory ledger (fresh process)": false,
      "demo wall time (embedded)": true,
      "demo peak RSS (largest process, embedded)": false,
      "irrevon --help, fresh process": true,
    });
  });

  it("a demo whose contrast fails does not meet its goal; missing figures are left out, with the note", () => {
    const targets = judgeStartup(
      result({
        demo: [{ wallMs: 100, peakRssMb: 100, contrastHolds: false }],
        cliHelp: null,
        notes: ["dist is missing"],
      }),
    );
    expect(targets.find((t) => t.name === "demo wall time (embedded)")?.met).toBe(false);
    expect(targets.some((t) => t.name.startsWith("irrevon --help"))).toBe(false);
    const md = renderStartup(result({ cliHelp: null, notes: ["dist is missing"] })).join("\n");
    expect(md).toContain("open new embedded ledger (file)");
    expect(md).toContain("Note: dist is missing.");
  });
});
