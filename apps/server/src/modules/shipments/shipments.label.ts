// frontend `shipping/getShippingLabel`: a bought parcel's label as the carrier made it (a PDF, 4×6 or letter).
import { LabelInput, SHIPMENT_MESSAGES } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { CarrierError, type EasyPostClient } from '../../carriers/easypost.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { carrierClient } from './shipments.carrier.ts';
import { shipmentPackages, shipments } from './shipments.tables.ts';

export async function shippingLabel(
  services: Services,
  actor: Actor,
  raw: unknown,
  client: EasyPostClient = carrierClient(services),
): Promise<{ filename: string; pdf: Buffer }> {
  const input = LabelInput.parse(raw ?? {});
  const [found] = await services.db
    .select({ shipment: shipments, pkg: shipmentPackages })
    .from(shipments)
    .innerJoin(shipmentPackages, eq(shipmentPackages.shipmentId, shipments.id))
    .where(
      and(
        eq(shipments.id, input.shipment_id),
        eq(shipments.accountId, actor.accountId),
        eq(shipmentPackages.position, input.package),
      ),
    );
  if (!found) throw new DomainError('NOT_FOUND', SHIPMENT_MESSAGES.notFound);
  if (!found.pkg.labelUrl) throw new DomainError('INVALID_STATE', SHIPMENT_MESSAGES.noLabel);
  try {
    const pdf = await client.labelFile(found.pkg.labelUrl);
    return { filename: `label-${found.pkg.trackingCode ?? found.shipment.id}.pdf`, pdf };
  } catch (err) {
    if (err instanceof CarrierError) throw new DomainError('UPSTREAM_FAILED', SHIPMENT_MESSAGES.carrier(err.message));
    throw err;
  }
}
