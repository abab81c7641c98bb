/**
 * workbench/views/error-page — the HTML answer to a bad filter, an unknown page or an
 * unavailable database: the same code the API would send, in words. Imports: workbench.
 */
import type { WorkbenchError } from "../http-errors.js";
import { html, type SafeHtml } from "./html.js";
import { page } from "./layout.js";

/** The error page. */
export function errorPage(error: WorkbenchError, isDemo: boolean): SafeHtml {
  return page(
    { title: error.code, section: "none", isDemo },
    html`<section class="error" data-error-code="${error.code}">
      <h1>${error.code}</h1>
      <p>${error.message}</p>
      <p><a href="/effects">Back to the effects list</a></p>
    </section>`,
  );
}
