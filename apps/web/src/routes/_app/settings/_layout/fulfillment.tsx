import { Stack, Text } from '@mantine/core';
import { createFileRoute } from '@tanstack/react-router';
import { LabelSettingsSection } from '../../../../components/shipments/label-settings.tsx';
import { PickupEmailsSection } from '../-components/pickup-emails-section.tsx';
import { ShippingLocationSection } from '../-components/shipping-location-section.tsx';

// SPEC §2: the fulfillment settings sub-page (issue 15): the stored shipping location the queue opens on (SPEC §3),
// the labels (size, weight unit, default parcel, carrier services), and the pickup e-mail texts.
export const Route = createFileRoute('/_app/settings/_layout/fulfillment')({
  component: FulfillmentSettingsPage,
});

function FulfillmentSettingsPage() {
  return (
    <Stack gap="lg">
      <Text size="sm" c="dimmed">
        How your stores work orders: where the queue opens, what a new label starts from, and what pickup customers are
        told.
      </Text>
      <ShippingLocationSection />
      <LabelSettingsSection />
      <PickupEmailsSection />
    </Stack>
  );
}
