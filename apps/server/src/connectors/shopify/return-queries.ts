/**
 * The Admin GraphQL (2025-01) operations the connector sends for refunds and returns, in one place so the
 * sandbox's tests run exactly these through Shopify's own client (`@shopify/admin-api-client`). No imports:
 * the sandbox package reads this file as it is.
 */

/** Orders read per listReturns page, and refunds named per order (an order's refunds are a plain list). */
export const REFUND_ORDERS_PAGE = 25;
export const REFUNDS_PER_ORDER = 25;
export const LINES_PER_REFUND = 50;

const MONEY = 'shopMoney { amount currencyCode }';

export const REFUND_FIELDS = `id createdAt updatedAt note totalRefundedSet { ${MONEY} } return { id }
  order { id name cancelledAt customer { displayName } billingAddress { name } }
  refundLineItems(first: ${LINES_PER_REFUND}) { nodes { quantity restockType location { id }
    subtotalSet { ${MONEY} } totalTaxSet { ${MONEY} } lineItem { id sku variant { id } } }
    pageInfo { hasNextPage } }
  refundShippingLines(first: 5) { nodes { subtotalAmountSet { ${MONEY} } taxAmountSet { ${MONEY} } } }`;

/** One refund, read now. */
export const REFUND_QUERY = `query Refund($id: ID!) { refund(id: $id) { ${REFUND_FIELDS} } }`;

/** Returns named per order, and what is read of one return (Shopify's Returns API, read_returns). */
export const RETURNS_PER_ORDER = 10;
export const LINES_PER_RETURN = 10;
export const REFUNDS_PER_RETURN = 2;
export const REVERSE_ORDERS_PER_RETURN = 2;

/**
 * Orders updated since a time with their refunds' ids (a refund updates its order; a refund that pays for a
 * return names it) and their returns' ids (a return's changes show on its order).
 */
export const ORDER_REFUNDS_QUERY = `query OrderRefunds($after: String, $query: String) {
  orders(first: ${REFUND_ORDERS_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    nodes { id refunds(first: ${REFUNDS_PER_ORDER}) { id note updatedAt return { id } }
      returns(first: ${RETURNS_PER_ORDER}) { nodes { id } } }
    pageInfo { hasNextPage endCursor } } }`;

/**
 * One return whole: its lines (by fulfillment line item, with the order line and SKU), what became of each unit
 * (its reverse fulfillment orders' dispositions: RESTOCKED at a location, or not), the refunds that paid for it,
 * and from its order the customer and when the returned units were shipped.
 */
export const RETURN_FIELDS = `id name status
  order { id currencyCode customer { displayName } billingAddress { name }
    fulfillments(first: 10) { createdAt fulfillmentLineItems(first: ${LINES_PER_RETURN}) { nodes { id } } } }
  returnLineItems(first: ${LINES_PER_RETURN}) { nodes { id quantity
    ... on ReturnLineItem { fulfillmentLineItem { id lineItem { id sku variant { id } } } } }
    pageInfo { hasNextPage } }
  reverseFulfillmentOrders(first: ${REVERSE_ORDERS_PER_RETURN}) { nodes { lineItems(first: ${LINES_PER_RETURN}) {
    nodes { totalQuantity fulfillmentLineItem { id } dispositions { quantity type location { id } } } } } }
  refunds(first: ${REFUNDS_PER_RETURN}) { nodes { id createdAt totalRefundedSet { ${MONEY} }
    refundLineItems(first: ${LINES_PER_RETURN}) { nodes { quantity subtotalSet { ${MONEY} } totalTaxSet { ${MONEY} }
      lineItem { id } } }
    refundShippingLines(first: 2) { nodes { subtotalAmountSet { ${MONEY} } taxAmountSet { ${MONEY} } } } } }`;

export const RETURN_QUERY = `query Return($id: ID!) { return(id: $id) { ${RETURN_FIELDS} } }`;

/** The return a reverse fulfillment order belongs to (its disposal's webhook names only the reverse order). */
export const REVERSE_ORDER_RETURN_QUERY = `query ReverseFulfillmentOrderReturn($id: ID!) {
  reverseFulfillmentOrder(id: $id) { id order { returns(first: ${RETURNS_PER_ORDER}) { nodes { id
    reverseFulfillmentOrders(first: ${REVERSE_ORDERS_PER_RETURN}) { nodes { id } } } } } } }`;

/** What a refund needs from its order: the sale to refund against, the lines' fulfilled units, earlier refunds. */
export const REFUND_ORDER_QUERY = `query RefundOrder($id: ID!) { order(id: $id) { id currencyCode
  transactions(first: 20) { id kind status gateway }
  refunds(first: ${REFUNDS_PER_ORDER}) { id note }
  fulfillments(first: 20) { location { id } }
  lineItems(first: 100) { nodes { id currentQuantity unfulfilledQuantity } } } }`;

export const REFUND_CREATE_MUTATION = `mutation RefundCreate($input: RefundInput!) {
  refundCreate(input: $input) { refund { id } userErrors { field message } } }`;
