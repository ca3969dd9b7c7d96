/**
 * The Admin GraphQL (2025-01) operations the connector sends for orders, in one place so the sandbox's
 * tests can run exactly these through Shopify's own client (`@shopify/admin-api-client`). No imports:
 * the sandbox package reads this file as it is.
 */

/** Orders on one listOrders page (each query's requested cost stays under Shopify's 1,000-point cap). */
export const ORDERS_PAGE = 6;
export const LINES_PER_ORDER = 10;
/** Fulfillment orders read with the order; an order split over more locations is read again, line by line. */
export const FULFILLMENT_ORDERS_PER_ORDER = 5;

const MONEY = 'shopMoney { amount }';
const ADDRESS =
  'firstName lastName name company address1 address2 city province provinceCode zip country countryCodeV2 phone';

export const LINE_FIELDS = `id sku name quantity currentQuantity unfulfilledQuantity variant { id }
  originalUnitPriceSet { ${MONEY} } totalDiscountSet { ${MONEY} } taxLines(first: 2) { priceSet { ${MONEY} } }`;

export const ORDER_FIELDS = `id legacyResourceId name email phone note tags createdAt updatedAt cancelledAt cancelReason currencyCode
  displayFinancialStatus displayFulfillmentStatus
  customer { displayName email phone }
  shippingAddress { ${ADDRESS} }
  billingAddress { ${ADDRESS} }
  totalPriceSet { ${MONEY} } subtotalPriceSet { ${MONEY} } totalShippingPriceSet { ${MONEY} }
  totalTaxSet { ${MONEY} } totalDiscountsSet { ${MONEY} }
  lineItems(first: ${LINES_PER_ORDER}) { nodes { ${LINE_FIELDS} } pageInfo { hasNextPage endCursor } }
  fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_ORDER}) { nodes { id status assignedLocation { location { id } } deliveryMethod { methodType } } }`;

/** Orders updated since a time (`query: "updated_at:>='…'"`), oldest change first. */
export const ORDERS_QUERY = `query Orders($after: String, $query: String) {
  orders(first: ${ORDERS_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage endCursor } } }`;

/** Order stamps on one page of the periodic pull: an id and an updated-at cost about a point each. */
export const ORDER_STAMPS_PAGE = 250;

/** What changed since a time, and when (the same filter and order as ORDERS_QUERY). */
export const ORDER_STAMPS_QUERY = `query OrderStamps($after: String, $query: String) {
  orders(first: ${ORDER_STAMPS_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    nodes { id updatedAt } pageInfo { hasNextPage endCursor } } }`;

/** One order, read now. */
export const ORDER_QUERY = `query Order($id: ID!) { order(id: $id) { ${ORDER_FIELDS} } }`;

/** Orders read together by id (`nodes`, costed a node an id): as many as a listOrders page holds. */
export const ORDER_NODES_PER_QUERY = ORDERS_PAGE;

/** Several orders by id, in the order asked (null for an id that names no order). */
export const ORDER_NODES_QUERY = `query OrderNodes($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { ${ORDER_FIELDS} } } }`;

/** The rest of an order's lines, past the first page. */
export const ORDER_LINES_QUERY = `query OrderLines($id: ID!, $after: String) { order(id: $id) {
  lineItems(first: 50, after: $after) { nodes { ${LINE_FIELDS} } pageInfo { hasNextPage endCursor } } } }`;

/** Which lines each fulfillment order holds, for an order split over several locations. */
export const ORDER_FULFILLMENT_LINES_QUERY = `query OrderFulfillmentLines($id: ID!) { order(id: $id) {
  fulfillmentOrders(first: 5) { nodes { status assignedLocation { location { id } }
    lineItems(first: 40) { nodes { totalQuantity lineItem { id } } } } } } }`;

/** Cancels at Shopify: a job that cancels asynchronously, or orderCancelUserErrors. */
export const ORDER_CANCEL_MUTATION = `mutation OrderCancel($orderId: ID!, $reason: OrderCancelReason!, $refund: Boolean!, $restock: Boolean!, $notifyCustomer: Boolean, $staffNote: String) {
  orderCancel(orderId: $orderId, reason: $reason, refund: $refund, restock: $restock, notifyCustomer: $notifyCustomer, staffNote: $staffNote) {
    job { id done } orderCancelUserErrors { field message code } } }`;
