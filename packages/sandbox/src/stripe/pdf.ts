import { formatDate, formatMoney } from './money.ts';
import type { Invoice } from './types.ts';

/**
 * The invoice as a one-page PDF (invoice_pdf), written by hand: PDF 1.4, the standard Helvetica fonts,
 * text only. Enough for a merchant to download and open a real document.
 */
export function invoicePdf(businessName: string, invoice: Invoice): Buffer {
  const ops: string[] = [];
  const text = (x: number, y: number, size: number, value: string, bold = false) =>
    ops.push(`BT /${bold ? 'F2' : 'F1'} ${size} Tf ${x} ${y} Td (${pdfString(value)}) Tj ET`);
  const right = (x: number, y: number, size: number, value: string, bold = false) =>
    text(x - approxWidth(value, size), y, size, value, bold);
  const rule = (y: number) => ops.push(`0.85 G 0.5 w 50 ${y} m 562 ${y} l S 0 G`);

  let y = 740;
  text(50, y, 22, 'Invoice', true);
  right(562, y, 12, businessName, true);
  y -= 36;
  const meta: [string, string][] = [
    ['Invoice number', invoice.number ?? invoice.id],
    ['Date of issue', formatDate(invoice.effective_at ?? invoice.created)],
    ['Status', invoice.status[0]?.toUpperCase() + invoice.status.slice(1)],
    ['Billed to', [invoice.customer_name, invoice.customer_email].filter(Boolean).join(', ') || invoice.customer],
  ];
  for (const [label, value] of meta) {
    text(50, y, 10, label, true);
    text(160, y, 10, value);
    y -= 16;
  }
  y -= 16;
  text(50, y, 10, 'Description', true);
  right(470, y, 10, 'Qty', true);
  right(562, y, 10, 'Amount', true);
  y -= 8;
  rule(y);
  y -= 16;
  for (const line of invoice.lines.data) {
    text(50, y, 10, truncate(line.description, 70));
    right(470, y, 10, String(line.quantity));
    right(562, y, 10, formatMoney(line.amount, line.currency));
    y -= 13;
    text(50, y, 8, `${formatDate(line.period.start)} - ${formatDate(line.period.end)}`);
    y -= 18;
    if (y < 120) break;
  }
  rule(y + 6);
  y -= 10;
  const totals: [string, string][] = [
    ['Total', formatMoney(invoice.total, invoice.currency)],
    ...(invoice.amount_due !== invoice.total
      ? ([['Applied balance', formatMoney(invoice.amount_due - invoice.total, invoice.currency)]] as [string, string][])
      : []),
    ['Amount due', formatMoney(invoice.amount_due, invoice.currency)],
    ['Amount paid', formatMoney(invoice.amount_paid, invoice.currency)],
  ];
  for (const [label, value] of totals) {
    text(360, y, 10, label, true);
    right(562, y, 10, value);
    y -= 16;
  }
  text(50, 60, 8, 'Test mode: issued by the Switchyard sandbox, not by Stripe.');

  const content = Buffer.from(ops.join('\n'), 'latin1');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = chunks[0]?.length ?? 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    length += b.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    push(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1'));
  });
  offsets.push(length);
  push(Buffer.from(`6 0 obj\n<< /Length ${content.length} >>\nstream\n`, 'latin1'));
  push(content);
  push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  const xref = length;
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  push(
    Buffer.from(
      `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(chunks);
}

/** A PDF literal string in WinAnsi: escapes, and the few typographic characters we use mapped. */
function pdfString(value: string): string {
  return value
    .replace(/×/g, 'x')
    .replace(/[–—]/g, '-')
    .replace(/[•·]/g, '*')
    .replace(/[’‘]/g, "'")
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
    .replace(/([\\()])/g, '\\$1');
}

const approxWidth = (value: string, size: number) => Math.round(value.length * size * 0.52);
const truncate = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
