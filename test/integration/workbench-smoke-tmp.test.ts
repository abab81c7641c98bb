import { it } from "vitest";
import { chromium } from "playwright-core";
import { openTestLedger } from "../support/databases.js";
import { seedWorkbenchLedger } from "../support/workbench-fixtures.js";
import { startWorkbench } from "../../src/workbench/server.js";
it("smoke", async () => {
  const ledger = await openTestLedger("pglite");
  const seeded = await seedWorkbenchLedger(ledger, { flagshipStableIds: { order_id: "9410", customer_ref: "C-0007" } });
  const wb = await startWorkbench({ db: ledger.read, port: 0, isDemo: true });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  const msgs: string[] = [];
  for (const [w, h] of [[1280, 900], [390, 844]] as const) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    page.on("console", (m) => msgs.push(m.text()));
    for (const [name, path] of [["list", "effects"], ["detail", `effects/${seeded.flagship}`], ["findings", "findings"], ["adapters", "adapters"]]) {
      await page.goto(wb.url + path);
      await page.screenshot({ path: `/tmp/wb/${name}-${w}.png`, fullPage: true });
      if (name === "detail") { await page.locator(".timeline-scroll").screenshot({ path: `/tmp/wb/tl-${w}.png` }); await page.screenshot({ path: `/tmp/wb/top-${name}-${w}.png` }); }
      if (name !== "detail") await page.screenshot({ path: `/tmp/wb/top-${name}-${w}.png` });
    }
    await page.close();
  }
  console.log(msgs);
  await browser.close();
  await wb.close();
  await ledger.close();
});
