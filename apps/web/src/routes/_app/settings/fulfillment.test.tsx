import { DEFAULT_PICKUP_EMAILS, type FulfillmentSettings, type FulfillmentStores } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { type RenderAppOptions, renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';

const SLOW = { timeout: 5000 };

const store = (storeId: string, name: string, extra: Partial<FulfillmentStores['stores'][number]> = {}) => ({
  id: `loc_${storeId}`,
  storeId,
  name,
  enabled: true,
  ships: true,
  pickup: true,
  ...extra,
});
const stores: FulfillmentStores = {
  stores: [store('N1', 'North store'), store('S1', 'South store'), store('W1', 'West depot', { enabled: false })],
  defaultStoreId: 'N1',
};
const settings: FulfillmentSettings = {
  shipping_location: null,
  pickup_emails: DEFAULT_PICKUP_EMAILS,
  pickup_emails_custom: false,
};
const labelSettings = { label_size: '4x6', weight_unit: 'oz', default_package: null, services: [] };

function page(
  handlers: Record<string, (input: unknown) => unknown> = {},
  { advanceTimers }: Pick<RenderAppOptions, 'advanceTimers'> = {},
) {
  return renderApp('/settings/fulfillment', {
    signedIn: true,
    ...(advanceTimers ? { advanceTimers } : {}),
    handlers: {
      'shipments.settings': () => labelSettings,
      'fulfillment.settings': () => settings,
      'fulfillment.stores': () => stores,
      ...handlers,
    },
  });
}

describe('settings: fulfillment', { timeout: 30_000 }, () => {
  it('stores the shipping location the queue opens on, and clears it', async () => {
    const sent: unknown[] = [];
    let current = settings;
    const { user } = await page({
      'fulfillment.settings': () => current,
      'fulfillment.setShippingLocation': (input) => {
        sent.push(input);
        const id = (input as { store_id: string | null }).store_id;
        current = { ...current, shipping_location: id ? { store_id: id } : null };
        return current;
      },
    });
    const section = await screen.findByRole('region', { name: 'Shipping location' }, SLOW);
    expect(
      await within(section).findByText('None stored: the queue opens on North store (N1).', {}, SLOW),
    ).toBeInTheDocument();
    // Saving without a choice says what is missing, and sends nothing.
    await user.click(within(section).getByRole('button', { name: 'Save shipping location' }));
    expect(await within(section).findByText('Choose a store.')).toBeInTheDocument();
    expect(sent).toEqual([]);

    // Keyboard only: open the store list, go down to the second store, choose it, save.
    await user.click(within(section).getByRole('combobox', { name: 'Store' }));
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(within(section).getByRole('combobox', { name: 'Store' })).toHaveValue('South store (S1)');
    await user.click(within(section).getByRole('button', { name: 'Save shipping location' }));
    await waitFor(() => expect(sent).toEqual([{ store_id: 'S1' }]));
    expect(await screen.findByText('Shipping location saved.')).toBeInTheDocument();

    await user.click(await within(section).findByRole('button', { name: 'Clear' }, SLOW));
    await waitFor(() => expect(sent).toEqual([{ store_id: 'S1' }, { store_id: null }]));
    expect(await screen.findByText('Shipping location cleared.')).toBeInTheDocument();
  });

  it('shows the server’s reason when a store cannot be stored', async () => {
    const { user } = await page({
      'fulfillment.setShippingLocation': () => {
        throw new ProcedureError('NOT_FOUND', 'No location has store id S1.');
      },
    });
    const section = await screen.findByRole('region', { name: 'Shipping location' }, SLOW);
    await user.click(await within(section).findByRole('combobox', { name: 'Store' }, SLOW));
    await user.click(await screen.findByRole('option', { name: 'South store (S1)' }));
    await user.click(within(section).getByRole('button', { name: 'Save shipping location' }));
    expect(await within(section).findByText('No location has store id S1.')).toBeInTheDocument();
  });

  it('has a way to add a store when there is none, and a retry when loading fails', async () => {
    // Failed queries retry with backoff first (SPEC §9): on a fake clock, which findBy moves on.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const { user } = await page(
      {
        'fulfillment.stores': () => ({ stores: [], defaultStoreId: null }),
        'fulfillment.settings': () => {
          if (fail) throw new ProcedureError('INTERNAL_SERVER_ERROR', 'The database is away.');
          return settings;
        },
      },
      { advanceTimers: (ms) => vi.advanceTimersByTime(ms) },
    );
    const section = await screen.findByRole('region', { name: 'Shipping location' }, SLOW);
    // The error state shows once they give up.
    const alert = await within(section).findByRole('alert', {}, { timeout: 20_000 });
    expect(alert).toHaveTextContent('Could not load the shipping location');
    expect(alert).toHaveTextContent('The database is away.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await within(section).findByRole('link', { name: 'Add a location' }, SLOW)).toHaveAttribute(
      'href',
      '/locations/create',
    );
  });

  it('edits the pickup e-mails with placeholders, previews them, and refuses unknown placeholders', async () => {
    const sent: unknown[] = [];
    const { user } = await page({
      'fulfillment.updatePickupEmails': (input) => {
        sent.push(input);
        return { ...settings, pickup_emails: input, pickup_emails_custom: true };
      },
    });
    const section = await screen.findByRole('region', { name: 'Pickup e-mails' }, SLOW);
    const preview = await within(section).findByTestId('pickup-preview', {}, SLOW);
    // The defaults, filled with a sample order at the queue's store.
    expect(within(preview).getByTestId('pickup-preview-subject')).toHaveTextContent(
      'Your order #1001 is ready for pickup',
    );
    expect(preview).toHaveTextContent(
      'Good news: your Analytical Engines Ltd order #1001 is ready for pickup at North store, 12 Main St, Springfield.',
    );
    await user.click(within(section).getByRole('radio', { name: 'Curbside' }));
    expect(preview).toHaveTextContent('ready for curbside pickup at North store');
    expect(preview).toHaveTextContent('we bring it out to your car.');

    const subject = within(section).getByRole('textbox', { name: 'Subject' });
    await user.clear(subject);
    await user.type(subject, 'Come get {{order_number}');
    expect(within(preview).getByTestId('pickup-preview-subject')).toHaveTextContent('Come get #1001');

    const body = within(section).getByRole('textbox', { name: 'Text' });
    await user.clear(body);
    await user.type(body, 'Hi {{name}, see you at ');
    await user.click(within(section).getByRole('button', { name: 'Insert {store_name}' }));
    expect(body).toHaveValue('Hi {name}, see you at {store_name}');
    expect(preview).toHaveTextContent('see you at North store');

    await user.click(within(section).getByRole('button', { name: 'Save pickup e-mails' }));
    expect(await within(section).findByText(/\{name\} is not a placeholder\. Use \{first_name\}/)).toBeInTheDocument();
    expect(sent).toEqual([]);

    await user.clear(body);
    await user.type(body, 'Hi {{first_name}!');
    await user.click(within(section).getByRole('radio', { name: 'Picked up' }));
    expect(within(section).getByRole('textbox', { name: 'Subject' })).toHaveValue(
      DEFAULT_PICKUP_EMAILS.picked_up.subject,
    );
    await user.click(within(section).getByRole('button', { name: 'Save pickup e-mails' }));
    await waitFor(() =>
      expect(sent).toEqual([
        {
          ready: { subject: 'Come get {order_number}', body: 'Hi {first_name}!' },
          picked_up: DEFAULT_PICKUP_EMAILS.picked_up,
        },
      ]),
    );
    expect(await screen.findByText('Pickup e-mails saved.')).toBeInTheDocument();
    expect(await within(section).findByText('Your texts')).toBeInTheDocument();
  });
});
