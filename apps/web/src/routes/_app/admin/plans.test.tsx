import type { Plan } from '@switchyard/contracts';
import { MESSAGES } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { SUPER_ADMIN_META, SUPERUSER_META } from '../../../test/session.ts';
import { PARTNER, STARTER } from '../../subscription/-components/fixtures.ts';

describe('admin plans page', () => {
  it('does not exist for a superuser who is not a super admin, and has no sidebar entry for them', async () => {
    await renderApp('/admin/plans', { signedIn: { meta: SUPERUSER_META }, handlers: { 'admin.plans.list': () => [] } });
    expect(await screen.findByText(MESSAGES.notFound)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Plans' })).not.toBeInTheDocument();
  });

  it('lists the plans with prices, limits and visibility; Plans is the current sidebar entry', async () => {
    await renderApp('/admin/plans', {
      signedIn: { meta: SUPER_ADMIN_META },
      handlers: { 'admin.plans.list': () => [STARTER, { ...PARTNER, active: false }] },
    });
    const table = await screen.findByRole('table', { name: 'Plans' });
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('Starter');
    expect(rows[1]).toHaveTextContent('$29.00');
    expect(rows[1]).toHaveTextContent('$290.00');
    expect(rows[1]).toHaveTextContent('2 sales channels · 1 location · 500 orders a month · 2 users');
    expect(rows[1]).toHaveTextContent('Public');
    expect(rows[2]).toHaveTextContent('Unlimited sales channels');
    expect(rows[2]).toHaveTextContent('Retired');
    expect(rows[2]).toHaveTextContent('Not listed');
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Plans' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Admin' })).not.toHaveAttribute('aria-current');
  });

  it('creates a plan, checking the fields first and turning prices into minor units', async () => {
    const saved: unknown[] = [];
    let plans: Plan[] = [STARTER];
    const { user } = await renderApp('/admin/plans', {
      signedIn: { meta: SUPER_ADMIN_META },
      handlers: {
        'admin.plans.list': () => plans,
        'admin.plans.upsert': (input) => {
          saved.push(input);
          const plan = { ...(input as Plan), id: 'plan-new' };
          plans = [...plans, plan];
          return plan;
        },
      },
    });
    await screen.findByRole('table', { name: 'Plans' });
    await user.click(screen.getByRole('button', { name: 'New plan' }));
    const form = await screen.findByRole('form', { name: 'Create a plan' });
    await user.type(within(form).getByLabelText(/^Code/), 'Scale Up');
    await user.type(within(form).getByLabelText(/Monthly price/), '49.999');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    // Name and yearly price are missing.
    expect(within(form).getAllByText('* Required')).toHaveLength(2);
    expect(within(form).getByText('Lower-case letters, digits and dashes')).toBeInTheDocument();
    expect(within(form).getByText('At most 2 decimals in USD')).toBeInTheDocument();
    expect(saved).toEqual([]);

    await user.type(within(form).getByLabelText(/^Name/), 'Scale');
    const code = within(form).getByLabelText(/^Code/);
    await user.clear(code);
    await user.type(code, 'scale');
    const monthly = within(form).getByLabelText(/Monthly price/);
    await user.clear(monthly);
    await user.type(monthly, '49.50');
    await user.type(within(form).getByLabelText(/Yearly price/), '495');
    await user.type(within(form).getByLabelText('Sales channels'), '10');
    await user.type(within(form).getByLabelText('Features'), 'Priority support\n\n  Custom reports  ');
    await user.click(within(form).getByRole('checkbox', { name: /Public/ }));
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));

    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toEqual({
      code: 'scale',
      name: 'Scale',
      description: '',
      currency: 'usd',
      monthlyPrice: 4950,
      yearlyPrice: 49500,
      limits: { channels: 10, locations: null, ordersPerMonth: null, users: null },
      features: ['Priority support', 'Custom reports'],
      public: false,
      active: true,
      sortOrder: 20,
    });
    expect(await screen.findByText('Plan “Scale” saved.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await screen.findByRole('cell', { name: /Scale/ })).toBeInTheDocument();
  }, 20_000);

  it('edits a plan with its current values, keeping its id and code', async () => {
    const saved: unknown[] = [];
    const { user } = await renderApp('/admin/plans', {
      signedIn: { meta: SUPER_ADMIN_META },
      handlers: {
        'admin.plans.list': () => [STARTER],
        'admin.plans.upsert': (input) => {
          saved.push(input);
          return input;
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Edit Starter' }));
    const form = await screen.findByRole('form', { name: 'Edit the plan' });
    expect(within(form).getByLabelText(/Monthly price/)).toHaveValue('29.00');
    expect(within(form).getByLabelText('Locations')).toHaveValue('1');
    expect(within(form).getByLabelText('Features')).toHaveValue('Catalog and stock sync\nE-mail support');
    expect(within(form).getByLabelText(/^Code/)).toHaveAttribute('readonly');
    const yearly = within(form).getByLabelText(/Yearly price/);
    await user.clear(yearly);
    await user.type(yearly, '300');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ id: STARTER.id, code: 'starter', yearlyPrice: 30000, monthlyPrice: 2900 });
  }, 15_000);
});
