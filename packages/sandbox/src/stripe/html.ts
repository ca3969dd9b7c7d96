/** Markup helpers for the hosted pages: escaped text, one stylesheet, no scripts, no external assets. */

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A tagged template that escapes interpolations unless they are already markup (`raw`). */
export class Raw {
  readonly html: string;
  constructor(html: string) {
    this.html = html;
  }
  toString() {
    return this.html;
  }
}

export const raw = (html: string) => new Raw(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const rendered = Array.isArray(value)
      ? value.map((v) => (v instanceof Raw ? v.html : esc(v))).join('')
      : value instanceof Raw
        ? value.html
        : value === null || value === undefined || value === false
          ? ''
          : esc(value);
    out += rendered + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1a1f36;background:#f6f9fc}
a{color:#635bff}
.page{max-width:980px;margin:0 auto;padding:32px 20px;display:flex;gap:48px;flex-wrap:wrap}
.page.narrow{max-width:640px;display:block}
.summary{flex:1 1 360px}
.pay{flex:1 1 380px;background:#fff;border-radius:8px;box-shadow:0 2px 8px rgba(50,50,93,.12);padding:24px}
.back{display:inline-block;margin-bottom:24px;color:#697386;text-decoration:none}
.back:hover{color:#1a1f36}
.business{font-weight:600;margin-bottom:24px;display:flex;gap:8px;align-items:center}
.badge{font-size:11px;font-weight:700;text-transform:uppercase;background:#ffde92;color:#983705;border-radius:4px;padding:2px 6px}
.badge.ok{background:#d7f7c2;color:#05690d}.badge.warn{background:#fcedb9;color:#a82c00}.badge.muted{background:#e3e8ee;color:#4f566b}
.plan{color:#697386;margin:0}
.amount{font-size:36px;font-weight:600;margin:4px 0 24px}
.amount small{font-size:15px;color:#697386;font-weight:400}
table{width:100%;border-collapse:collapse}
td,th{padding:8px 0;text-align:left;border-bottom:1px solid #e3e8ee;vertical-align:top}
td.num,th.num{text-align:right}
td+td,th+th{padding-left:16px}
fieldset{border:0;padding:0;margin:0 0 16px;min-width:0}
legend{font-weight:600;margin-bottom:8px;padding:0}
label{display:block;font-size:13px;color:#4f566b;margin:12px 0 4px}
input[type=text],input[type=email]{width:100%;padding:10px 12px;border:1px solid #d5dbe1;border-radius:6px;font-size:15px}
input[aria-invalid=true]{border-color:#df1b41}
input:focus{outline:2px solid #635bff;outline-offset:0}
.row{display:flex;gap:12px}.row>div{flex:1}
.field-error{color:#df1b41;font-size:13px;margin:4px 0 0}
.alert{background:#fff5f5;border:1px solid #df1b41;color:#a41c4e;border-radius:6px;padding:10px 12px;margin:0 0 16px}
.notice{background:#f0f7ff;border:1px solid #635bff;color:#1a1f36;border-radius:6px;padding:10px 12px;margin:0 0 16px}
button{width:100%;background:#635bff;color:#fff;border:0;border-radius:6px;padding:12px;font-size:16px;font-weight:600;margin-top:16px;cursor:pointer}
button.secondary{background:#fff;color:#1a1f36;border:1px solid #d5dbe1}
button.danger{background:#fff;color:#df1b41;border:1px solid #df1b41}
button.inline{width:auto;padding:8px 14px;font-size:14px;margin:0}
label.choice{display:flex;gap:8px;align-items:center;font-size:15px;color:inherit;margin:6px 0;padding:10px 12px;border:1px solid #d5dbe1;border-radius:6px;cursor:pointer}
form:has(#method-card:checked) .bank-fields{display:none}
form:has(#method-ach:checked) .card-fields{display:none}
.hint{font-size:13px;color:#697386}
.card{background:#fff;border-radius:8px;box-shadow:0 2px 8px rgba(50,50,93,.12);padding:24px;margin-bottom:24px}
h1{font-size:24px;margin:0 0 16px}h2{font-size:18px;margin:0 0 12px}
.actions{display:flex;gap:12px;flex-wrap:wrap;margin-top:12px}
@media (prefers-color-scheme:dark){body{background:#0a2540;color:#f6f9fc}.pay,.card{background:#1a2c44;box-shadow:none}
input[type=text],input[type=email]{background:#0a2540;color:#f6f9fc;border-color:#425466}.plan,.amount small,.hint,.back{color:#adbdcc}
td,th{border-color:#425466}label{color:#adbdcc}button.secondary{background:#1a2c44;color:#f6f9fc}.alert{background:#3b1021;color:#ffb3c6}.notice{background:#1a2c44;color:#f6f9fc}}
`;

export function layout(title: string, body: Raw): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body.html}
</body>
</html>`;
}

/** A labelled text input with its error (linked by aria-describedby), as the e2e tests find them. */
export function field(opts: {
  id: string;
  label: string;
  name?: string;
  value?: string;
  error?: string;
  type?: 'text' | 'email';
  autocomplete?: string;
  /** Focus on load: the first field with an error. */
  autofocus?: boolean;
  placeholder?: string;
  inputmode?: 'numeric' | 'email' | 'text';
  required?: boolean;
}): Raw {
  const errorId = `${opts.id}-error`;
  return html`<label for="${opts.id}">${opts.label}</label>
<input type="${opts.type ?? 'text'}" id="${opts.id}" name="${opts.name ?? opts.id}" value="${opts.value ?? ''}"${raw(
    opts.autocomplete ? ` autocomplete="${esc(opts.autocomplete)}"` : '',
  )}${raw(opts.placeholder ? ` placeholder="${esc(opts.placeholder)}"` : '')}${raw(
    opts.inputmode ? ` inputmode="${opts.inputmode}"` : '',
  )}${raw(opts.error ? ` aria-invalid="true" aria-describedby="${errorId}"` : '')}${raw(opts.autofocus ? ' autofocus' : '')}>
${opts.error ? html`<p class="field-error" id="${errorId}">${opts.error}</p>` : ''}`;
}

/** A posted form as strings only (a repeated or bracketed field is ignored rather than trusted). */
export function formFields<K extends string>(body: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  if (!body || typeof body !== 'object') return out;
  for (const key of keys) {
    const value = (body as Record<string, unknown>)[key];
    if (typeof value === 'string') out[key] = value.slice(0, 200);
  }
  return out;
}
