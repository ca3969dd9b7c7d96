import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BufferInput,
  BufferSkuSearch,
  colorModeFromParam,
  DashboardSearch,
  LabelInput,
  ListAllocationsInput,
  OrderStatusInput,
  PageInput,
  RoutingVersionInput,
  retryDelayMs,
  SyncGetInput,
  SyncIdInput,
} from './index.ts';

describe('contracts', () => {
  it('reads only letters, digits and spaces from the theme parameter', () => {
    expect(colorModeFromParam('dark')).toBe('dark');
    expect(colorModeFromParam(' Light ')).toBe('light');
    expect(colorModeFromParam('auto')).toBe('auto');
    expect(colorModeFromParam('dark;')).toBeUndefined();
    expect(colorModeFromParam('<b>dark</b>')).toBeUndefined();
    expect(colorModeFromParam('sepia')).toBeUndefined();
    expect(colorModeFromParam(undefined)).toBeUndefined();
  });

  it('backs off failed queries from 1 s, doubling, up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('gives the dashboard its defaults and drops bad values', () => {
    expect(DashboardSearch.parse({})).toEqual({ timeframe: '30d', granularity: 'day' });
    expect(DashboardSearch.parse({ timeframe: '6m', granularity: 'fortnight' })).toEqual({
      timeframe: '6m',
      granularity: 'day',
    });
  });

  it('names what a number input wants when it is not a number, never "received NaN"', () => {
    const said = (schema: z.ZodType, input: Record<string, unknown>) =>
      schema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(said(OrderStatusInput, { status: 'abc' })).toEqual(['status: Status must be a whole number from 0 to 9']);
    expect(said(OrderStatusInput, { status: 10 })).toEqual(['status: Status must be a whole number from 0 to 9']);
    expect(said(LabelInput, { shipment_id: 's', package: 'x' })).toEqual([
      'package: Package must be a whole number from 1 to 10',
    ]);
    expect(said(SyncGetInput, { id: 'abc' })).toEqual(['id: Sync ids are whole numbers']);
    expect(said(SyncIdInput, { id: 'abc' })).toEqual(['id: Sync ids are whole numbers']);
    expect(said(BufferInput, { sku: 'A', location_external_id: 'S1', channel_id: 'c', qty: 'abc' })).toEqual([
      'qty: Should be a whole number',
    ]);
    expect(said(RoutingVersionInput, { version: 'abc' })).toEqual(['version: Versions are whole numbers, 0 or more']);
    expect(said(ListAllocationsInput, { status: 'abc' })).toEqual([
      'status: status must be a whole number from 0 to 5',
    ]);
    expect(said(PageInput, { limit: 'abc', offset: 'x' })).toEqual([
      'limit: limit must be a whole number from 1 to 200',
      'offset: offset must be a whole number, 0 or more',
    ]);
    expect(said(BufferSkuSearch, { limit: 'abc' })).toEqual(['limit: limit must be a whole number from 1 to 50']);
  });

  it('reads an empty optional status filter as any status, as a missing one, and still refuses text', () => {
    expect(ListAllocationsInput.parse({ status: '' })).toEqual(ListAllocationsInput.parse({}));
    expect(ListAllocationsInput.parse({ status: '  ' }).status).toBeUndefined();
    expect(ListAllocationsInput.parse({ status: '4' }).status).toBe(4);
    expect(ListAllocationsInput.parse({ status: 0 }).status).toBe(0);
    for (const status of ['abc', '6', -1, null, true]) {
      expect(ListAllocationsInput.safeParse({ status }).error?.issues[0]?.message, JSON.stringify(status)).toBe(
        'status must be a whole number from 0 to 5',
      );
    }
    // Values to set are not filters: an empty status there is still refused.
    expect(OrderStatusInput.safeParse({ status: '' }).success).toBe(false);
  });

  it('reads a whole number from a number or a string of one, and takes nothing else for 0', () => {
    expect(OrderStatusInput.parse({ status: '6' })).toEqual({ status: 6 });
    expect(OrderStatusInput.parse({ status: 0 })).toEqual({ status: 0 });
    for (const status of [null, '', '  ', true, false, [], {}, '6 units']) {
      expect(OrderStatusInput.safeParse({ status }).error?.issues[0]?.message, JSON.stringify(status)).toBe(
        'Status must be a whole number from 0 to 9',
      );
    }
    expect(PageInput.parse({})).toEqual({ limit: 25, offset: 0 });
    expect(PageInput.parse({ limit: '50', offset: '100' })).toEqual({ limit: 50, offset: 100 });
    expect(SyncIdInput.safeParse({ id: 0 }).error?.issues[0]?.message).toBe('Sync ids are whole numbers');
  });
});
