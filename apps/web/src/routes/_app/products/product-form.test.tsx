import type { ProductCreateInput, ProductUpdateInput } from '@switchyard/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { CATALOGS, LOCATIONS, POS, product, SHOP } from './-components/test-fixtures.ts';

const base = {
  'channels.list': () => [SHOP, POS],
  'account.catalogs': () => CATALOGS,
  'locations.list': () => ({ results: LOCATIONS, total: LOCATIONS.length }),
  'products.brands': () => [],
};

const field = (form: HTMLElement, name: string | RegExp) => within(form).getByRole('textbox', { name });

/** Puts text in a field as one input (a paste): the form re-checks on every change, and typing is not the point here. */
async function fill(user: UserEvent, input: HTMLElement, text: string) {
  await user.click(input);
  await user.paste(text);
}

describe('the product form', { timeout: 120_000 }, () => {
  it('checks every field before sending, and creates the product with prices in minor units', async () => {
    let answer: () => unknown = () => {
      throw new ProcedureError('CONFLICT', 'SKU "LIN-S" is already used by another product.');
    };
    const created: ProductCreateInput[] = [];
    const { user, router } = await renderApp('/products/chn_shop/create', {
      signedIn: true,
      handlers: {
        ...base,
        'products.create': (input) => {
          created.push(input as ProductCreateInput);
          return answer();
        },
        'products.get': () => product(),
      },
    });
    const form = await screen.findByRole('form', { name: 'Product' }, { timeout: 10_000 });
    await user.click(within(form).getByRole('button', { name: 'Create product' }));
    expect(field(form, /^Title/)).toHaveAttribute('aria-invalid', 'true');
    expect(field(form, 'SKU of variant 1')).toHaveAttribute('aria-invalid', 'true');
    expect(field(form, 'Price of variant 1')).toHaveAttribute('aria-invalid', 'true');
    expect(within(form).getAllByText('* Required')).toHaveLength(3);
    expect(created).toEqual([]);

    await fill(user, field(form, /^Title/), 'Linen shirt');
    await fill(user, field(form, 'Brand'), 'Harbor');
    await fill(user, field(form, 'SKU of variant 1'), 'LIN-S');
    await fill(user, field(form, 'Price of variant 1'), '12.345');
    expect(within(form).getByText('Enter an amount like 12.50 (at most 2 decimals)')).toBeInTheDocument();
    await user.clear(field(form, 'Price of variant 1'));
    await fill(user, field(form, 'Price of variant 1'), '12.5');
    await fill(user, field(form, 'Compare-at price of variant 1'), '15');

    // A second variant with the same SKU is refused as the server would.
    await user.click(within(form).getByRole('button', { name: 'Add variant' }));
    await fill(user, field(form, 'SKU of variant 2'), 'LIN-S');
    await fill(user, field(form, 'Price of variant 2'), '14');
    expect(within(form).getByText('SKU is used by another variant of this product')).toBeInTheDocument();
    await user.clear(field(form, 'SKU of variant 2'));
    await fill(user, field(form, 'SKU of variant 2'), 'LIN-M');
    await fill(user, field(form, 'Variant title of variant 2'), 'Medium');

    // The server refuses a SKU another product has: its message, at that variant's SKU too.
    await user.click(within(form).getByRole('button', { name: 'Create product' }));
    const alert = await within(form).findByRole('alert');
    expect(alert).toHaveTextContent('SKU "LIN-S" is already used by another product.');
    expect(field(form, 'SKU of variant 1')).toHaveAttribute('aria-invalid', 'true');
    expect(created[0]).toEqual({
      channelId: 'chn_shop',
      title: 'Linen shirt',
      description: '',
      brand: 'Harbor',
      productType: null,
      status: 'active',
      images: [],
      variants: [
        { sku: 'LIN-S', alu: null, barcode: null, title: '', price: 1250, compareAtPrice: 1500 },
        { sku: 'LIN-M', alu: null, barcode: null, title: 'Medium', price: 1400, compareAtPrice: null },
      ],
    });

    answer = () => product({ id: 'prod_9', title: 'Linen shirt' });
    await user.clear(field(form, 'SKU of variant 1'));
    await fill(user, field(form, 'SKU of variant 1'), 'LIN-S2');
    await user.click(within(form).getByRole('button', { name: 'Create product' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/chn_shop/prod_9'));
    expect(created[1]?.variants[0]).toMatchObject({ sku: 'LIN-S2' });
    expect(await screen.findByText('Linen shirt was created.')).toBeInTheDocument();
  });

  it('edits a product named by ?id=, keeping its variant ids, and shows the saved product', async () => {
    const updated: ProductUpdateInput[] = [];
    const { user, router } = await renderApp('/products/chn_shop/edit?id=prod_1', {
      signedIn: true,
      handlers: {
        ...base,
        'products.get': () => product(),
        'products.update': (input) => {
          updated.push(input as ProductUpdateInput);
          return product({ title: 'Linen shirt, washed' });
        },
      },
    });
    const form = await screen.findByRole('form', { name: 'Product' }, { timeout: 10_000 });
    expect(field(form, /^Title/)).toHaveValue('Linen shirt');
    expect(field(form, 'Price of variant 1')).toHaveValue('25.00');
    expect(field(form, 'Compare-at price of variant 1')).toHaveValue('30.00');
    expect(field(form, 'ALU of variant 1')).toHaveValue('A-100');
    // The only variant cannot be removed.
    expect(within(form).getByRole('button', { name: 'Remove variant 1' })).toBeDisabled();

    await user.clear(field(form, /^Title/));
    await fill(user, field(form, /^Title/), 'Linen shirt, washed');
    await user.clear(field(form, 'Compare-at price of variant 1'));
    await user.click(within(form).getByRole('button', { name: 'Save product' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/chn_shop/prod_1'));
    expect(updated).toEqual([
      {
        id: 'prod_1',
        title: 'Linen shirt, washed',
        description: 'Light and cool.',
        brand: 'Harbor',
        productType: 'Shirts',
        status: 'active',
        images: [],
        variants: [
          {
            id: 'var_1',
            sku: 'LIN-S',
            alu: 'A-100',
            barcode: '0001',
            title: 'Small',
            price: 2500,
            compareAtPrice: null,
          },
        ],
      },
    ]);
  });

  it('uploads images through files/upload, reorders and removes them, and refuses what is not an image', async () => {
    const created: ProductCreateInput[] = [];
    let uploads = 0;
    const { user, rest } = await renderApp('/products/chn_shop/create', {
      signedIn: true,
      handlers: {
        ...base,
        'products.create': (input) => {
          created.push(input as ProductCreateInput);
          return product({ id: 'prod_9' });
        },
        'products.get': () => product({ id: 'prod_9' }),
      },
      rest: {
        'POST /api/v1/files/upload': () => {
          uploads += 1;
          return {
            status: 201,
            body: {
              url: `https://cdn.example/a-1/img${uploads}.png`,
              name: `img${uploads}.png`,
              size: 4,
              contentType: 'image/png',
            },
          };
        },
      },
    });
    const form = await screen.findByRole('form', { name: 'Product' }, { timeout: 10_000 });
    const input = form.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error('no file input');
    const png = (name: string) => new File([new Uint8Array([137, 80, 78, 71])], name, { type: 'image/png' });
    await user.upload(input, [png('front.png'), png('back.png')]);
    const images = await within(form).findByRole('list', { name: 'Images' });
    await waitFor(() => expect(within(images).getAllByRole('listitem')).toHaveLength(2));
    const sent = rest.calls.filter((call) => call.url === '/api/v1/files/upload');
    expect(sent).toHaveLength(2);
    expect(sent[0]?.data).toBeInstanceOf(FormData);
    expect((sent[0]?.data as FormData | undefined)?.get('file')).toBeInstanceOf(File);

    await user.click(within(images).getByRole('button', { name: 'Move image 2 earlier' }));
    await user.click(within(images).getByRole('button', { name: 'Remove image 2' }));
    expect(
      within(images)
        .getAllByRole('img')
        .map((img) => img.getAttribute('src')),
    ).toEqual(['https://cdn.example/a-1/img2.png']);

    // Checked before anything is sent (the server checks the content again).
    fireEvent.change(input, { target: { files: [new File(['%PDF'], 'terms.pdf', { type: 'application/pdf' })] } });
    expect(
      await within(form).findByText('terms.pdf is not an image we take (PNG, JPEG, WebP or GIF).'),
    ).toBeInTheDocument();
    expect(rest.calls.filter((call) => call.url === '/api/v1/files/upload')).toHaveLength(2);

    await fill(user, field(form, /^Title/), 'Linen shirt');
    await fill(user, field(form, 'SKU of variant 1'), 'LIN-S');
    await fill(user, field(form, 'Price of variant 1'), '25');
    await user.click(within(form).getByRole('button', { name: 'Create product' }));
    await waitFor(() => expect(created[0]?.images).toEqual(['https://cdn.example/a-1/img2.png']));
  });

  it('says so when the address names no product', async () => {
    await renderApp('/products/chn_shop/edit', { signedIn: true, handlers: base });
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      'This address does not name a product to edit.',
    );
  });
});
