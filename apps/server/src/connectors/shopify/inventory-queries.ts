/**
 * The Admin GraphQL operations the connector sends to set stock, in one place so the sandbox's tests can run
 * exactly these through Shopify's own client (`@shopify/admin-api-client`). No imports: the sandbox package
 * reads this file as it is.
 */

/** 2025-01: compare-and-set rows carry compareQuantity; a batch without them says ignoreCompareQuantity. */
export const SET_QUANTITIES_MUTATION = `mutation($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) {
  inventoryAdjustmentGroup { id } userErrors { code field message } } }`;

/**
 * 2026-01: the same write, run once per key (a repeat gets the first answer); compareQuantity is
 * changeFromQuantity there (null: no check).
 */
export const SET_QUANTITIES_ONCE_MUTATION = `mutation($input: InventorySetQuantitiesInput!, $key: String!) {
  inventorySetQuantities(input: $input) @idempotent(key: $key) {
  inventoryAdjustmentGroup { id } userErrors { code field message } } }`;
