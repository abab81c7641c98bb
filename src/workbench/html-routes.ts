/**
 * workbench/html-routes — the server-rendered pages: effects list, one effect, findings
 * queue, destination declarations, and the stylesheet. Bad filters answer 400 with an error
 * page naming the parameter, unknown effects 404. Imports: workbench.
 */
import type { Hono } from "hono";
import type { WorkbenchEnv } from "./app-env.js";
import { APP_CSS } from "./assets/app-css.js";
import {
  workbenchError,
  WorkbenchErrorCode,
  type WorkbenchError,
  STATUS_OF,
} from "./http-errors.js";
import { parseEffectsQuery, parseFindingsQuery, parseNoQuery } from "./query-params.js";
import {
  adaptersView,
  effectDetail,
  effectsPage,
  findingsPage,
  type Reader,
} from "./read-model.js";
import { cssResponse, htmlResponse } from "./responses.js";
import { adaptersPage } from "./views/adapters-page.js";
import { effectPage } from "./views/effect-page.js";
import { effectsPage as renderEffects } from "./views/effects-page.js";
import { errorPage } from "./views/error-page.js";
import { findingsPage as renderFindings } from "./views/findings-page.js";

/** Registers the HTML routes on `app`. */
export function registerHtmlRoutes(app: Hono<WorkbenchEnv>, read: Reader, isDemo: boolean): void {
  const fail = (error: WorkbenchError): Response =>
    htmlResponse(STATUS_OF[error.code], errorPage(error, isDemo));

  app.get("/", (c) => c.redirect("/effects", 302));

  app.get("/assets/app.css", () => cssResponse(APP_CSS));

  app.get("/effects", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const query = parseEffectsQuery(params);
    if (!query.ok) return fail(query.error);
    const { value, asOf } = await effectsPage(read, query.value);
    return htmlResponse(
      200,
      renderEffects({
        items: value.items,
        nextCursor: value.nextCursor,
        current: params,
        asOf,
        isDemo,
      }),
    );
  });

  app.get("/effects/:id{[0-9a-f]{64}}", async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return fail(query.error);
    const { value, asOf } = await effectDetail(read, c.req.param("id"));
    if (value === null)
      return fail(workbenchError(WorkbenchErrorCode.not_found, "no effect record with this id"));
    return htmlResponse(
      200,
      effectPage({ doc: value.doc, probeCitations: value.probeCitations, asOf, isDemo }),
    );
  });

  app.get("/findings", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const query = parseFindingsQuery(params);
    if (!query.ok) return fail(query.error);
    const { value, asOf } = await findingsPage(read, query.value);
    return htmlResponse(
      200,
      renderFindings({
        items: value.items,
        nextCursor: value.nextCursor,
        current: params,
        asOf,
        isDemo,
      }),
    );
  });

  app.get("/adapters", async (c) => {
    const query = parseNoQuery(new URL(c.req.url).searchParams);
    if (!query.ok) return fail(query.error);
    const { value, asOf } = await adaptersView(read);
    return htmlResponse(
      200,
      adaptersPage({ declarations: value.declarations, ledger: value.ledger, asOf, isDemo }),
    );
  });
}
