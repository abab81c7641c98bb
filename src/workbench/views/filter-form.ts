/**
 * workbench/views/filter-form — GET filter forms (no script: the browser submits them to the
 * page itself, which CSP `form-action 'self'` allows). A select's empty option means "any",
 * which the parser reads as "not given". Imports: workbench.
 */
import { html, join, type SafeHtml } from "./html.js";

/** One field of a filter form. */
export type FilterField =
  | {
      readonly kind: "select";
      readonly name: string;
      readonly label: string;
      readonly options: readonly string[];
    }
  | {
      readonly kind: "text";
      readonly name: string;
      readonly label: string;
      readonly placeholder?: string;
    };

function field(f: FilterField, current: URLSearchParams): SafeHtml {
  const value = current.get(f.name) ?? "";
  const id = `f-${f.name}`;
  if (f.kind === "select") {
    const options = f.options.map((o) =>
      o === value
        ? html`<option value="${o}" selected>${o}</option>`
        : html`<option value="${o}">${o}</option>`,
    );
    return html`<label for="${id}"
      >${f.label}<select id="${id}" name="${f.name}">
        <option value="">any</option>
        ${options}
      </select></label
    >`;
  }
  return html`<label for="${id}"
    >${f.label}<input
      id="${id}"
      name="${f.name}"
      type="text"
      value="${value}"
      placeholder="${f.placeholder ?? ""}"
      autocomplete="off"
  /></label>`;
}

/** The form; `action` is the page's own path. */
export function filterForm(
  action: string,
  fields: readonly FilterField[],
  current: URLSearchParams,
): SafeHtml {
  return html`<form class="filters" method="get" action="${action}" data-form="filters">
    ${join(fields.map((f) => field(f, current)))}
    <div class="actions"><button type="submit">Filter</button> <a href="${action}">Reset</a></div>
  </form>`;
}

/** A link to the next page: the current filters plus `cursor`. */
export function nextPageLink(
  action: string,
  current: URLSearchParams,
  cursor: string | null,
): SafeHtml {
  if (cursor === null) return html``;
  const next = new URLSearchParams(current);
  next.set("cursor", cursor);
  return html`<p class="pager">
    <a href="${action}?${next.toString()}" rel="next" data-link="next-page">Next page →</a>
  </p>`;
}
