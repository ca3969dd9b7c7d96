import { InventorySimpleQuery } from '@switchyard/contracts';
import type { FastifyReply } from 'fastify';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import {
  type CsvExport,
  exportAlu,
  exportCatalogInventory,
  inventorySimpleCsv,
  inventorySimpleReport,
} from './exports.service.ts';

/** Sends a CSV export as a download; the body streams as the database is read. */
function sendCsv(reply: FastifyReply, file: CsvExport) {
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'no-store');
  return file.stream;
}

/** SPEC §7 frontend `GET export/catalogInventory` and `GET export/alu`. */
export function exportsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/export/catalogInventory',
    handler: async ({ actor, reply }) => sendCsv(reply, await exportCatalogInventory(services.db, actor)),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/export/alu',
    handler: async ({ actor, reply }) => sendCsv(reply, await exportAlu(services.db, actor)),
  });
}

/** SPEC §7 v1 `GET reports/catalog/inventory/simple`: JSON pages, or every row as CSV with format=csv. */
export function exportsV1Rest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/reports/catalog/inventory/simple',
    summary: 'On hand per SKU and location store id, with the total (JSON paged, or CSV)',
    tags: ['reports'],
    input: InventorySimpleQuery,
    handler: async ({ actor, input, reply }) =>
      input.format === 'csv'
        ? sendCsv(reply, await inventorySimpleCsv(services.db, actor, input))
        : inventorySimpleReport(services.db, actor, input),
  });
}
