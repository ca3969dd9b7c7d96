// A postage label as a real PDF: 4×6 in (288×432 pt) or letter (the label in its top half), with the
// addresses, the service, a Code 128 barcode of the tracking code (bwip-js) and, in test mode, the words
// that make it unusable as postage.
import bwipjs from 'bwip-js/node';
import PDFDocument from 'pdfkit';
import type { EpAddress, Shipment } from './state.ts';

export const LABEL_SIZES = { '4x6': [288, 432], '8.5x11': [612, 792] } as const;
export type LabelSize = keyof typeof LABEL_SIZES;

const addressLines = (a: EpAddress) =>
  [
    a.name,
    a.company,
    a.street1,
    a.street2,
    [a.city, a.state, a.zip].filter(Boolean).join(a.city && a.state ? ', ' : ' '),
    a.country && a.country !== 'US' ? a.country : null,
  ].filter((l): l is string => !!l && l.trim() !== '');

export async function renderLabel(shipment: Shipment, size: LabelSize): Promise<Buffer> {
  const rate = shipment.selected_rate;
  const code = shipment.tracking_code ?? '';
  const barcode = await bwipjs.toBuffer({
    bcid: 'code128',
    text: code,
    scale: 3,
    height: 14,
    includetext: false,
  });
  const [width, height] = LABEL_SIZES[size];
  const doc = new PDFDocument({
    size: [width, height],
    margin: 0,
    info: { Title: `Label ${code}`, Producer: 'Switchyard carrier sandbox', Creator: 'EasyPost (simulated)' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // The label is drawn in a 4×6 box at the top left; letter paper leaves room to fold.
  const x = size === '4x6' ? 12 : 36;
  const top = size === '4x6' ? 12 : 36;
  const w = 264;
  doc
    .lineWidth(1.5)
    .rect(x - 4, top - 4, w + 8, 408)
    .stroke();
  doc
    .font('Helvetica-Bold')
    .fontSize(22)
    .text(rate?.carrier ?? '', x, top, { width: 60 });
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text((rate?.service ?? '').replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase(), x + 64, top + 6, {
      width: w - 64,
      align: 'right',
    });
  doc
    .moveTo(x, top + 34)
    .lineTo(x + w, top + 34)
    .stroke();
  doc
    .font('Helvetica')
    .fontSize(7)
    .text('FROM:', x, top + 40);
  doc.fontSize(8).text(addressLines(shipment.from_address).join('\n'), x + 30, top + 40, { width: w - 30 });
  doc
    .font('Helvetica')
    .fontSize(8)
    .text('SHIP TO:', x, top + 104);
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .text(addressLines(shipment.to_address).join('\n'), x + 20, top + 118, { width: w - 20 });
  doc
    .moveTo(x, top + 210)
    .lineTo(x + w, top + 210)
    .stroke();
  doc
    .font('Helvetica-Bold')
    .fontSize(9)
    .text(`${rate?.carrier ?? ''} TRACKING #`, x, top + 218, { width: w, align: 'center' });
  doc.image(barcode, x + 10, top + 232, { width: w - 20, height: 70 });
  doc
    .font('Helvetica')
    .fontSize(11)
    .text(code.replace(/(.{4})/g, '$1 ').trim(), x, top + 308, { width: w, align: 'center' });
  doc
    .fontSize(7)
    .text(
      `Weight ${(shipment.parcel.weight / 16).toFixed(2)} lb · Zone ${shipment.usps_zone ?? '-'} · ${shipment.created_at.slice(0, 10)}`,
      x,
      top + 330,
      { width: w, align: 'center' },
    );
  if (shipment.mode === 'test') {
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor('#b00000')
      .text('TEST LABEL - NOT VALID FOR POSTAGE', x, top + 360, { width: w, align: 'center' })
      .fillColor('black');
  }
  if (shipment.reference)
    doc
      .font('Helvetica')
      .fontSize(7)
      .text(`Ref: ${shipment.reference}`, x, top + 388, { width: w });
  doc.end();
  return done;
}
