/**
 * The benchmark report page in a real browser (Debian chromium via playwright-core): a report
 * built from synthetic runs (two seeds, R, the composite and B5 on the four C2 discriminating
 * cells, one cell where an arm has no value) renders its SVG charts — rate dots with Wilson
 * whiskers for every arm with a value, the forest plot with its δ band — loads nothing, trips
 * no CSP rule (the page's only style is allowed by its hash) and runs no script. Screenshot:
 * test-artifacts/bench-report/report-1280.png.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { RUN_RESULTS_FORMAT, type RunResult } from "../../src/bench/analysis/run-results.js";
import {
  emptyCell,
  METRIC_KEYS,
  rateCell,
  type MetricTable,
} from "../../src/bench/metrics/metric-cells.js";
import { buildReport } from "../../src/bench/report/report.js";
import { writeReportFiles } from "../../src/bench/report/write-report.js";

const CHROMIUM = process.env["IRREVON_CHROMIUM"] ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts", "bench-report");
const SKIP = !existsSync(CHROMIUM) && process.env["CI"] === undefined;
if (SKIP)
  console.warn(
    `[test/browser] chromium not found at ${CHROMIUM}; skipping (apt-get install chromium; CI fails instead).`,
  );

const CELLS = [
  "response-lost",
  "retry-storm",
  "semantic-resynthesis",
  "crash-after-effect-before-response",
].map((f) => `C2/refdest/${f}/IRREVERSIBLE`);
const ARMS = { "R@pglite": 0, "B5+B3+B6": 2, B5: 5 } as const;

function runs(): RunResult[] {
  return Object.entries(ARMS).flatMap(([arm, k]) =>
    CELLS.flatMap((cell, ci) =>
      [0, 1].map((rep) => ({
        run_id: `${arm}.${ci}.${rep}`,
        arm,
        cell_id: cell,
        replicate_index: rep,
        validity: "VALID" as const,
        metrics: Object.fromEntries(
          METRIC_KEYS.map((m) => [
            m,
            m === "false_reconciliation_rate" ? emptyCell("N/A-by-arm") : rateCell(k + rep, 20),
          ]),
        ) as unknown as MetricTable,
      })),
    ),
  );
}

describe.skipIf(SKIP)("bench report page in chromium", () => {
  it("renders the charts without loading anything or tripping the CSP", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irrevon-bench-report-"));
    const report = buildReport(
      { format: RUN_RESULTS_FORMAT, runs: runs() },
      {
        margin: 0.01,
        c1Margin: 0.005,
        gate: 0.1,
        referenceArms: ["R@pglite"],
        compositeArm: "B5+B3+B6",
        b5Arm: "B5",
        c1Arms: ["B5"],
      },
      {
        wall_time_s: 1.5,
        slots: 24,
        environment_digest: null,
        manifest_root_hash: null,
        manifest_id: "mf_dev.v1",
      },
    );
    writeReportFiles(dir, report);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const csp: string[] = [];
      const requests: string[] = [];
      page.on("console", (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) csp.push(m.text());
      });
      page.on("request", (r) => {
        if (!r.url().startsWith("file:")) requests.push(r.url());
      });
      await page.goto(pathToFileURL(join(dir, "report.html")).href);
      expect(await page.locator("svg.chart.rates").count()).toBe(3);
      expect(await page.locator("svg.chart.forest").count()).toBe(1);
      // 3 arms × 4 cells, every one with a value, in each of the three rate charts
      expect(await page.locator("svg.rates circle.rate").count()).toBe(36);
      expect(await page.locator("svg.rates line.ci").count()).toBe(36);
      // R vs composite and vs B5 for each primary metric
      expect(await page.locator("svg.forest rect.estimate").count()).toBe(6);
      const band = await page.locator("svg.forest rect.delta-band").boundingBox();
      expect(band?.width ?? 0).toBeGreaterThan(1);
      // the hashed style applied: body font is the system-ui stack, not the browser default
      expect(await page.evaluate("getComputedStyle(document.body).marginTop")).toBe("24px");
      expect(await page.locator("script").count()).toBe(0);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "report-1280.png"), fullPage: true });
      expect(csp).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 20_000);
});
