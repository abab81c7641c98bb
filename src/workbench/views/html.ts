/**
 * workbench/views/html — server-side HTML without a template engine: a tagged template that
 * escapes every interpolated value unless it is already {@link SafeHtml}. The only way to
 * get SafeHtml from a plain string is `html` itself, so untrusted text cannot become markup.
 * Imports: nothing.
 */

/** Markup that has been escaped (or written by us). */
export class SafeHtml {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

/** What may be interpolated. null, undefined and false render as nothing. */
export type HtmlValue =
  SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join("");
  return escapeHtml(String(value));
}

/** The tagged template: `html\`<td>${text}</td>\``. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i += 1) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

/** Joins fragments. */
export function join(parts: readonly HtmlValue[], separator: HtmlValue = ""): SafeHtml {
  return new SafeHtml(parts.map(render).join(render(separator)));
}
