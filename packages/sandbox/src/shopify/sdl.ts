/**
 * The subset of Shopify's Admin GraphQL schema (2025-01) the simulator serves. Names, arguments and
 * payload shapes follow Shopify's; a query written for the real API against these fields runs unchanged.
 */
export const SDL = /* GraphQL */ `
scalar DateTime
scalar Decimal
scalar Money
scalar URL
scalar HTML

interface Node { id: ID! }

type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }

enum CurrencyCode { USD EUR GBP CAD AUD }
type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
type MoneyBag { shopMoney: MoneyV2! presentmentMoney: MoneyV2! }

type Domain { host: String! url: URL! }
type Shop implements Node {
  id: ID! name: String! email: String! myshopifyDomain: String! currencyCode: CurrencyCode!
  ianaTimezone: String! url: URL! primaryDomain: Domain! createdAt: DateTime!
}

type LocationAddress {
  address1: String address2: String city: String province: String provinceCode: String zip: String
  country: String countryCode: String formatted: [String!]!
}
enum DeliveryLocalPickupTime { ONE_HOUR TWO_HOURS FOUR_HOURS TWENTY_FOUR_HOURS TWO_TO_FOUR_DAYS FIVE_OR_MORE_DAYS CUSTOM }
type DeliveryLocalPickupSettings { pickupTime: DeliveryLocalPickupTime! instructions: String! }
type Location implements Node {
  id: ID! name: String! isActive: Boolean! fulfillsOnlineOrders: Boolean! address: LocationAddress!
  localPickupSettingsV2: DeliveryLocalPickupSettings
  createdAt: DateTime! updatedAt: DateTime!
  inventoryLevel(inventoryItemId: ID!): InventoryLevel
  inventoryLevels(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String): InventoryLevelConnection!
}
type LocationEdge { cursor: String! node: Location! }
type LocationConnection { edges: [LocationEdge!]! nodes: [Location!]! pageInfo: PageInfo! }
enum LocationSortKeys { ID NAME RELEVANCE }

enum ProductStatus { ACTIVE ARCHIVED DRAFT }
type ProductOptionValue { id: ID! name: String! hasVariants: Boolean! }
type ProductOption { id: ID! name: String! position: Int! values: [String!]! optionValues: [ProductOptionValue!]! }
type Image { id: ID url: URL! altText: String }
type ImageEdge { cursor: String! node: Image! }
type ImageConnection { edges: [ImageEdge!]! nodes: [Image!]! pageInfo: PageInfo! }
type Product implements Node {
  id: ID! title: String! handle: String! vendor: String! productType: String! descriptionHtml: HTML!
  description: String! status: ProductStatus! tags: [String!]! createdAt: DateTime! updatedAt: DateTime!
  totalInventory: Int! hasOnlyDefaultVariant: Boolean!
  options(first: Int): [ProductOption!]!
  images(first: Int, after: String, last: Int, before: String, reverse: Boolean): ImageConnection!
  variants(first: Int, after: String, last: Int, before: String, reverse: Boolean): ProductVariantConnection!
}
type ProductEdge { cursor: String! node: Product! }
type ProductConnection { edges: [ProductEdge!]! nodes: [Product!]! pageInfo: PageInfo! }
enum ProductSortKeys { ID TITLE UPDATED_AT CREATED_AT PRODUCT_TYPE VENDOR RELEVANCE }

type SelectedOption { name: String! value: String! }
type ProductVariant implements Node {
  id: ID! title: String! displayName: String! sku: String barcode: String price: Money! compareAtPrice: Money
  position: Int! inventoryQuantity: Int selectedOptions: [SelectedOption!]! createdAt: DateTime! updatedAt: DateTime!
  product: Product! inventoryItem: InventoryItem!
}
type ProductVariantEdge { cursor: String! node: ProductVariant! }
type ProductVariantConnection { edges: [ProductVariantEdge!]! nodes: [ProductVariant!]! pageInfo: PageInfo! }
enum ProductVariantSortKeys { ID SKU TITLE POSITION INVENTORY_QUANTITY RELEVANCE }

type InventoryItem implements Node {
  id: ID! sku: String tracked: Boolean! requiresShipping: Boolean! createdAt: DateTime! updatedAt: DateTime!
  variant: ProductVariant!
  inventoryLevel(locationId: ID!): InventoryLevel
  inventoryLevels(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String): InventoryLevelConnection!
}
type InventoryItemEdge { cursor: String! node: InventoryItem! }
type InventoryItemConnection { edges: [InventoryItemEdge!]! nodes: [InventoryItem!]! pageInfo: PageInfo! }

type InventoryQuantity { id: ID! name: String! quantity: Int! updatedAt: DateTime }
type InventoryLevel implements Node {
  id: ID! item: InventoryItem! location: Location! createdAt: DateTime! updatedAt: DateTime! canDeactivate: Boolean!
  quantities(names: [String!]!): [InventoryQuantity!]!
}
type InventoryLevelEdge { cursor: String! node: InventoryLevel! }
type InventoryLevelConnection { edges: [InventoryLevelEdge!]! nodes: [InventoryLevel!]! pageInfo: PageInfo! }

type InventoryChange { name: String! delta: Int! quantityAfterChange: Int item: InventoryItem location: Location ledgerDocumentUri: URL }
type InventoryAdjustmentGroup { id: ID! createdAt: DateTime! reason: String! referenceDocumentUri: URL changes(inventoryItemIds: [ID!], locationIds: [ID!], quantityNames: [String!]): [InventoryChange!]! }

type Customer { id: ID! firstName: String lastName: String displayName: String! email: String phone: String }
type MailingAddress {
  firstName: String lastName: String name: String company: String
  address1: String address2: String city: String province: String provinceCode: String zip: String
  country: String countryCodeV2: String phone: String
}
type TaxLine { title: String! rate: Float priceSet: MoneyBag! }
type LineItem {
  id: ID! sku: String title: String! name: String! variantTitle: String quantity: Int! currentQuantity: Int!
  refundableQuantity: Int! unfulfilledQuantity: Int! nonFulfillableQuantity: Int! variant: ProductVariant product: Product
  originalUnitPriceSet: MoneyBag! discountedUnitPriceSet: MoneyBag!
  originalTotalSet: MoneyBag! discountedTotalSet: MoneyBag! totalDiscountSet: MoneyBag!
  taxLines(first: Int): [TaxLine!]!
}
type LineItemEdge { cursor: String! node: LineItem! }
type LineItemConnection { edges: [LineItemEdge!]! nodes: [LineItem!]! pageInfo: PageInfo! }

enum FulfillmentOrderStatus { OPEN IN_PROGRESS CLOSED CANCELLED INCOMPLETE ON_HOLD SCHEDULED }
enum DeliveryMethodType { SHIPPING PICK_UP LOCAL NONE RETAIL SHIPPING_EXPRESS }
type DeliveryMethod { id: ID! methodType: DeliveryMethodType! }
type FulfillmentOrderAssignedLocation { name: String! location: Location }
type FulfillmentOrderLineItem { id: ID! totalQuantity: Int! remainingQuantity: Int! sku: String lineItem: LineItem! }
type FulfillmentOrderLineItemEdge { cursor: String! node: FulfillmentOrderLineItem! }
type FulfillmentOrderLineItemConnection { edges: [FulfillmentOrderLineItemEdge!]! nodes: [FulfillmentOrderLineItem!]! pageInfo: PageInfo! }
type FulfillmentOrder implements Node {
  id: ID! status: FulfillmentOrderStatus! createdAt: DateTime! updatedAt: DateTime! orderId: ID! order: Order!
  assignedLocation: FulfillmentOrderAssignedLocation! deliveryMethod: DeliveryMethod
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): FulfillmentOrderLineItemConnection!
}
type FulfillmentOrderEdge { cursor: String! node: FulfillmentOrder! }
type FulfillmentOrderConnection { edges: [FulfillmentOrderEdge!]! nodes: [FulfillmentOrder!]! pageInfo: PageInfo! }

enum FulfillmentStatus { SUCCESS CANCELLED ERROR FAILURE OPEN PENDING }
type FulfillmentTrackingInfo { company: String number: String url: URL }
type FulfillmentLineItem { id: ID! lineItem: LineItem! quantity: Int originalTotalSet: MoneyBag! discountedTotalSet: MoneyBag! }
type FulfillmentLineItemEdge { cursor: String! node: FulfillmentLineItem! }
type FulfillmentLineItemConnection { edges: [FulfillmentLineItemEdge!]! nodes: [FulfillmentLineItem!]! pageInfo: PageInfo! }
type Fulfillment implements Node {
  id: ID! status: FulfillmentStatus! createdAt: DateTime! location: Location trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
  totalQuantity: Int!
  fulfillmentLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): FulfillmentLineItemConnection!
}

enum OrderTransactionKind { SALE CAPTURE AUTHORIZATION VOID REFUND CHANGE EMV_AUTHORIZATION SUGGESTED_REFUND }
enum OrderTransactionStatus { SUCCESS FAILURE PENDING ERROR AWAITING_RESPONSE UNKNOWN }
type OrderTransaction { id: ID! kind: OrderTransactionKind! status: OrderTransactionStatus! gateway: String! amountSet: MoneyBag! parentTransaction: OrderTransaction createdAt: DateTime! }

enum RestockType { RETURN CANCEL NO_RESTOCK LEGACY_RESTOCK }
type RefundLineItem {
  id: ID! lineItem: LineItem! quantity: Int! restockType: RestockType! restocked: Boolean! location: Location
  priceSet: MoneyBag! subtotalSet: MoneyBag! totalTaxSet: MoneyBag!
}
type RefundLineItemEdge { cursor: String! node: RefundLineItem! }
type RefundLineItemConnection { edges: [RefundLineItemEdge!]! nodes: [RefundLineItem!]! pageInfo: PageInfo! }
type RefundShippingLine { id: ID! subtotalAmountSet: MoneyBag! taxAmountSet: MoneyBag! }
type RefundShippingLineEdge { cursor: String! node: RefundShippingLine! }
type RefundShippingLineConnection { edges: [RefundShippingLineEdge!]! nodes: [RefundShippingLine!]! pageInfo: PageInfo! }
enum OrderAdjustmentDiscrepancyReason { RESTOCK DAMAGE CUSTOMER REFUND_DISCREPANCY FULL_RETURN_BALANCING_ADJUSTMENT PENDING_REFUND_DISCREPANCY }
type OrderAdjustment implements Node { id: ID! amountSet: MoneyBag! taxAmountSet: MoneyBag! reason: OrderAdjustmentDiscrepancyReason }
type OrderAdjustmentEdge { cursor: String! node: OrderAdjustment! }
type OrderAdjustmentConnection { edges: [OrderAdjustmentEdge!]! nodes: [OrderAdjustment!]! pageInfo: PageInfo! }
type OrderTransactionEdge { cursor: String! node: OrderTransaction! }
type OrderTransactionConnection { edges: [OrderTransactionEdge!]! nodes: [OrderTransaction!]! pageInfo: PageInfo! }
type Refund implements Node {
  id: ID! legacyResourceId: String! createdAt: DateTime updatedAt: DateTime! note: String totalRefundedSet: MoneyBag! order: Order!
  return: Return
  refundLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): RefundLineItemConnection!
  refundShippingLines(first: Int, after: String, last: Int, before: String, reverse: Boolean): RefundShippingLineConnection!
  orderAdjustments(first: Int, after: String, last: Int, before: String, reverse: Boolean): OrderAdjustmentConnection!
  transactions(first: Int, after: String, last: Int, before: String, reverse: Boolean): OrderTransactionConnection!
}

type RefundEdge { cursor: String! node: Refund! }
type RefundConnection { edges: [RefundEdge!]! nodes: [Refund!]! pageInfo: PageInfo! }

enum ReturnStatus { CANCELED CLOSED DECLINED OPEN REQUESTED }
enum ReturnReason { COLOR DEFECTIVE NOT_AS_DESCRIBED OTHER SIZE_TOO_LARGE SIZE_TOO_SMALL STYLE UNKNOWN UNWANTED WRONG_ITEM }
enum ReturnDeclineReason { FINAL_SALE OTHER RETURN_PERIOD_ENDED }
enum ReturnErrorCode {
  ALREADY_EXISTS BLANK CREATION_FAILED EQUAL_TO FEATURE_NOT_ENABLED GREATER_THAN GREATER_THAN_OR_EQUAL_TO INCLUSION
  INTERNAL_ERROR INVALID INVALID_STATE LESS_THAN LESS_THAN_OR_EQUAL_TO NOTIFICATION_FAILED NOT_A_NUMBER NOT_EDITABLE
  NOT_FOUND PRESENT TAKEN TOO_BIG TOO_LONG TOO_MANY_ARGUMENTS TOO_SHORT WRONG_LENGTH
}
type ReturnUserError { code: ReturnErrorCode field: [String!] message: String! }
type ReturnDecline { reason: ReturnDeclineReason! note: String }
interface ReturnLineItemType {
  id: ID! quantity: Int! returnReason: ReturnReason! returnReasonNote: String! customerNote: String
  refundableQuantity: Int! refundedQuantity: Int!
}
type ReturnLineItem implements Node & ReturnLineItemType {
  id: ID! quantity: Int! returnReason: ReturnReason! returnReasonNote: String! customerNote: String
  refundableQuantity: Int! refundedQuantity: Int! fulfillmentLineItem: FulfillmentLineItem!
}
type ReturnLineItemTypeEdge { cursor: String! node: ReturnLineItemType! }
type ReturnLineItemTypeConnection { edges: [ReturnLineItemTypeEdge!]! nodes: [ReturnLineItemType!]! pageInfo: PageInfo! }
enum ReverseFulfillmentOrderStatus { CANCELED CLOSED OPEN }
enum ReverseFulfillmentOrderDispositionType { MISSING NOT_RESTOCKED PROCESSING_REQUIRED RESTOCKED }
type ReverseFulfillmentOrderDisposition implements Node {
  id: ID! location: Location quantity: Int! type: ReverseFulfillmentOrderDispositionType!
}
type ReverseFulfillmentOrderLineItem implements Node {
  id: ID! totalQuantity: Int! fulfillmentLineItem: FulfillmentLineItem dispositions: [ReverseFulfillmentOrderDisposition!]!
}
type ReverseFulfillmentOrderLineItemEdge { cursor: String! node: ReverseFulfillmentOrderLineItem! }
type ReverseFulfillmentOrderLineItemConnection { edges: [ReverseFulfillmentOrderLineItemEdge!]! nodes: [ReverseFulfillmentOrderLineItem!]! pageInfo: PageInfo! }
type ReverseFulfillmentOrder implements Node {
  id: ID! status: ReverseFulfillmentOrderStatus! order: Order
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): ReverseFulfillmentOrderLineItemConnection!
}
type ReverseFulfillmentOrderEdge { cursor: String! node: ReverseFulfillmentOrder! }
type ReverseFulfillmentOrderConnection { edges: [ReverseFulfillmentOrderEdge!]! nodes: [ReverseFulfillmentOrder!]! pageInfo: PageInfo! }
type Return implements Node {
  id: ID! name: String! status: ReturnStatus! order: Order! totalQuantity: Int! decline: ReturnDecline
  returnLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): ReturnLineItemTypeConnection!
  reverseFulfillmentOrders(first: Int, after: String, last: Int, before: String, reverse: Boolean): ReverseFulfillmentOrderConnection!
  refunds(first: Int, after: String, last: Int, before: String, reverse: Boolean): RefundConnection!
}
type ReturnEdge { cursor: String! node: Return! }
type ReturnConnection { edges: [ReturnEdge!]! nodes: [Return!]! pageInfo: PageInfo! }

enum OrderDisplayFinancialStatus { PENDING AUTHORIZED PARTIALLY_PAID PARTIALLY_REFUNDED VOIDED PAID REFUNDED EXPIRED }
enum OrderDisplayFulfillmentStatus { UNFULFILLED PARTIALLY_FULFILLED FULFILLED RESTOCKED PENDING_FULFILLMENT OPEN IN_PROGRESS ON_HOLD SCHEDULED REQUEST_DECLINED }
enum OrderCancelReason { CUSTOMER DECLINED FRAUD INVENTORY OTHER STAFF }
type Order implements Node {
  id: ID! legacyResourceId: String! name: String! email: String phone: String note: String tags: [String!]!
  createdAt: DateTime! updatedAt: DateTime! processedAt: DateTime!
  cancelledAt: DateTime cancelReason: OrderCancelReason closed: Boolean! currencyCode: CurrencyCode!
  displayFinancialStatus: OrderDisplayFinancialStatus displayFulfillmentStatus: OrderDisplayFulfillmentStatus!
  customer: Customer shippingAddress: MailingAddress billingAddress: MailingAddress
  totalPriceSet: MoneyBag! currentTotalPriceSet: MoneyBag! subtotalPriceSet: MoneyBag! currentSubtotalPriceSet: MoneyBag
  totalShippingPriceSet: MoneyBag! totalTaxSet: MoneyBag currentTotalTaxSet: MoneyBag!
  totalDiscountsSet: MoneyBag currentTotalDiscountsSet: MoneyBag!
  totalRefundedSet: MoneyBag! totalReceivedSet: MoneyBag!
  lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean): LineItemConnection!
  fulfillmentOrders(first: Int, after: String, last: Int, before: String, reverse: Boolean, displayable: Boolean): FulfillmentOrderConnection!
  fulfillments(first: Int): [Fulfillment!]!
  refunds(first: Int): [Refund!]!
  returns(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String): ReturnConnection!
  transactions(first: Int): [OrderTransaction!]!
}
type OrderEdge { cursor: String! node: Order! }
type OrderConnection { edges: [OrderEdge!]! nodes: [Order!]! pageInfo: PageInfo! }
enum OrderSortKeys { ID CREATED_AT UPDATED_AT PROCESSED_AT ORDER_NUMBER TOTAL_PRICE RELEVANCE }

enum WebhookSubscriptionTopic {
  APP_UNINSTALLED INVENTORY_LEVELS_UPDATE INVENTORY_ITEMS_UPDATE ORDERS_CREATE ORDERS_UPDATED ORDERS_CANCELLED ORDERS_FULFILLED
  REFUNDS_CREATE PRODUCTS_CREATE PRODUCTS_UPDATE FULFILLMENTS_CREATE FULFILLMENTS_UPDATE
  RETURNS_REQUEST RETURNS_APPROVE RETURNS_DECLINE RETURNS_CANCEL RETURNS_CLOSE RETURNS_REOPEN REVERSE_FULFILLMENT_ORDERS_DISPOSE
}
enum WebhookSubscriptionFormat { JSON XML }
type WebhookHttpEndpoint { callbackUrl: URL! }
union WebhookSubscriptionEndpoint = WebhookHttpEndpoint
type WebhookSubscription implements Node {
  id: ID! topic: WebhookSubscriptionTopic! format: WebhookSubscriptionFormat! callbackUrl: URL!
  endpoint: WebhookSubscriptionEndpoint! uri: String! createdAt: DateTime! updatedAt: DateTime!
}
type WebhookSubscriptionEdge { cursor: String! node: WebhookSubscription! }
type WebhookSubscriptionConnection { edges: [WebhookSubscriptionEdge!]! nodes: [WebhookSubscription!]! pageInfo: PageInfo! }

type Query {
  shop: Shop!
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  location(id: ID): Location
  locations(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String, sortKey: LocationSortKeys, includeInactive: Boolean): LocationConnection!
  product(id: ID!): Product
  products(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String, sortKey: ProductSortKeys): ProductConnection!
  productVariant(id: ID!): ProductVariant
  productVariants(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String, sortKey: ProductVariantSortKeys): ProductVariantConnection!
  inventoryItem(id: ID!): InventoryItem
  inventoryItems(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String): InventoryItemConnection!
  inventoryLevel(id: ID!): InventoryLevel
  order(id: ID!): Order
  refund(id: ID!): Refund
  return(id: ID!): Return
  reverseFulfillmentOrder(id: ID!): ReverseFulfillmentOrder
  orders(first: Int, after: String, last: Int, before: String, reverse: Boolean, query: String, sortKey: OrderSortKeys): OrderConnection!
  fulfillmentOrder(id: ID!): FulfillmentOrder
  job(id: ID!): Job
  webhookSubscription(id: ID!): WebhookSubscription
  webhookSubscriptions(first: Int, after: String, last: Int, before: String, reverse: Boolean, topics: [WebhookSubscriptionTopic!], callbackUrl: URL, format: WebhookSubscriptionFormat): WebhookSubscriptionConnection!
}

type UserError { field: [String!] message: String! }
type InventorySetQuantitiesUserError { field: [String!] message: String! code: String }
type InventoryAdjustQuantitiesUserError { field: [String!] message: String! code: String }
type ProductVariantsBulkCreateUserError { field: [String!] message: String! code: String }
type ProductVariantsBulkUpdateUserError { field: [String!] message: String! code: String }
type FulfillmentCreateUserError { field: [String!] message: String! }
type Job { id: ID! done: Boolean! }
enum OrderCancelUserErrorCode { INVALID NOT_FOUND NO_REFUND_PERMISSION }
type OrderCancelUserError { field: [String!] message: String! code: OrderCancelUserErrorCode }
type OrderCancelPayload { job: Job orderCancelUserErrors: [OrderCancelUserError!]! userErrors: [UserError!]! }

input InventoryQuantityInput { inventoryItemId: ID! locationId: ID! quantity: Int! compareQuantity: Int changeFromQuantity: Int }
input InventorySetQuantitiesInput {
  name: String! reason: String! referenceDocumentUri: String ignoreCompareQuantity: Boolean quantities: [InventoryQuantityInput!]!
}
type InventorySetQuantitiesPayload { inventoryAdjustmentGroup: InventoryAdjustmentGroup userErrors: [InventorySetQuantitiesUserError!]! }

input InventoryChangeInput { delta: Int! inventoryItemId: ID! locationId: ID! ledgerDocumentUri: String changeFromQuantity: Int }
input InventoryAdjustQuantitiesInput { name: String! reason: String! referenceDocumentUri: String changes: [InventoryChangeInput!]! }
type InventoryAdjustQuantitiesPayload { inventoryAdjustmentGroup: InventoryAdjustmentGroup userErrors: [InventoryAdjustQuantitiesUserError!]! }

input OptionValueCreateInput { name: String }
input OptionCreateInput { name: String values: [OptionValueCreateInput!] position: Int }
input ProductCreateInput {
  title: String descriptionHtml: String vendor: String productType: String status: ProductStatus tags: [String!] handle: String
  productOptions: [OptionCreateInput!]
}
input ProductUpdateInput {
  id: ID! title: String descriptionHtml: String vendor: String productType: String status: ProductStatus tags: [String!] handle: String
}
input ProductInput {
  id: ID title: String descriptionHtml: String vendor: String productType: String status: ProductStatus tags: [String!] handle: String
  productOptions: [OptionCreateInput!]
}
enum MediaContentType { IMAGE VIDEO EXTERNAL_VIDEO MODEL_3D }
input CreateMediaInput { originalSource: String! mediaContentType: MediaContentType! alt: String }
type ProductCreatePayload { product: Product userErrors: [UserError!]! }
type ProductUpdatePayload { product: Product userErrors: [UserError!]! }

input VariantOptionValueInput { optionName: String name: String id: ID optionId: ID }
input InventoryItemInput { sku: String tracked: Boolean requiresShipping: Boolean cost: Decimal }
input InventoryLevelInput { availableQuantity: Int! locationId: ID! }
input ProductVariantsBulkInput {
  id: ID barcode: String price: Money compareAtPrice: Money taxable: Boolean
  optionValues: [VariantOptionValueInput!] inventoryItem: InventoryItemInput inventoryQuantities: [InventoryLevelInput!]
  inventoryPolicy: String
}
enum ProductVariantsBulkCreateStrategy { DEFAULT REMOVE_STANDALONE_VARIANT PRESERVE_STANDALONE_VARIANT }
type ProductVariantsBulkCreatePayload { product: Product productVariants: [ProductVariant!] userErrors: [ProductVariantsBulkCreateUserError!]! }
type ProductVariantsBulkUpdatePayload { product: Product productVariants: [ProductVariant!] userErrors: [ProductVariantsBulkUpdateUserError!]! }

input FulfillmentOrderLineItemInput { id: ID! quantity: Int! }
input FulfillmentOrderLineItemsInput { fulfillmentOrderId: ID! fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!] }
input FulfillmentTrackingInput { company: String number: String url: URL numbers: [String!] urls: [URL!] }
input FulfillmentInput {
  lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]! notifyCustomer: Boolean trackingInfo: FulfillmentTrackingInput
}
type FulfillmentCreatePayload { fulfillment: Fulfillment userErrors: [FulfillmentCreateUserError!]! }
type FulfillmentCancelPayload { fulfillment: Fulfillment userErrors: [UserError!]! }
type FulfillmentTrackingInfoUpdatePayload { fulfillment: Fulfillment userErrors: [UserError!]! }

input RefundLineItemInput { lineItemId: ID! quantity: Int! restockType: RestockType locationId: ID }
enum OrderTransactionKindInput { REFUND }
input OrderTransactionInput { orderId: ID! gateway: String! kind: OrderTransactionKind! amount: Money! parentId: ID }
input ShippingRefundInput { amount: Money fullRefund: Boolean }
input RefundInput {
  orderId: ID! note: String notify: Boolean currency: CurrencyCode
  refundLineItems: [RefundLineItemInput!] transactions: [OrderTransactionInput!] shipping: ShippingRefundInput
}
type RefundCreatePayload { refund: Refund order: Order userErrors: [UserError!]! }

input ReturnLineItemInput { fulfillmentLineItemId: ID! quantity: Int! returnReason: ReturnReason! returnReasonNote: String }
input ReturnInput { orderId: ID! returnLineItems: [ReturnLineItemInput!]! notifyCustomer: Boolean requestedAt: DateTime }
input ReturnRequestLineItemInput { fulfillmentLineItemId: ID! quantity: Int! returnReason: ReturnReason! customerNote: String }
input ReturnRequestInput { orderId: ID! returnLineItems: [ReturnRequestLineItemInput!]! }
input ReturnApproveRequestInput { id: ID! notifyCustomer: Boolean }
input ReturnDeclineRequestInput { id: ID! declineReason: ReturnDeclineReason! declineNote: String notifyCustomer: Boolean }
input MoneyInput { amount: Decimal! currencyCode: CurrencyCode! }
input ReturnRefundLineItemInput { returnLineItemId: ID! quantity: Int! }
input RefundShippingInput { shippingRefundAmount: MoneyInput fullRefund: Boolean }
input ReturnRefundOrderTransactionInput { transactionAmount: MoneyInput! parentId: ID! }
input ReturnRefundInput {
  returnId: ID! returnRefundLineItems: [ReturnRefundLineItemInput!]! refundShipping: RefundShippingInput
  orderTransactions: [ReturnRefundOrderTransactionInput!] notifyCustomer: Boolean
}
input ReverseFulfillmentOrderDisposeInput {
  reverseFulfillmentOrderLineItemId: ID! quantity: Int! dispositionType: ReverseFulfillmentOrderDispositionType! locationId: ID
}
type ReturnCreatePayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnRequestPayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnApproveRequestPayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnDeclineRequestPayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnCancelPayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnClosePayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnReopenPayload { return: Return userErrors: [ReturnUserError!]! }
type ReturnRefundPayload { refund: Refund userErrors: [ReturnUserError!]! }
type ReverseFulfillmentOrderDisposePayload { reverseFulfillmentOrderLineItems: [ReverseFulfillmentOrderLineItem!] userErrors: [ReturnUserError!]! }

input WebhookSubscriptionInput { callbackUrl: URL format: WebhookSubscriptionFormat includeFields: [String!] }
type WebhookSubscriptionCreatePayload { webhookSubscription: WebhookSubscription userErrors: [UserError!]! }
type WebhookSubscriptionDeletePayload { deletedWebhookSubscriptionId: ID userErrors: [UserError!]! }

input PreparedFulfillmentOrderLineItemsInput { fulfillmentOrderId: ID! }
input FulfillmentOrderLineItemsPreparedForPickupInput { lineItemsByFulfillmentOrder: [PreparedFulfillmentOrderLineItemsInput!]! }
enum FulfillmentOrderLineItemsPreparedForPickupUserErrorCode { FULFILLMENT_ORDER_INVALID NO_LINE_ITEMS_TO_PREPARE_FOR_FULFILLMENT_ORDER UNABLE_TO_PREPARE_QUANTITY }
type FulfillmentOrderLineItemsPreparedForPickupUserError { code: FulfillmentOrderLineItemsPreparedForPickupUserErrorCode field: [String!] message: String! }
type FulfillmentOrderLineItemsPreparedForPickupPayload { userErrors: [FulfillmentOrderLineItemsPreparedForPickupUserError!]! }

type Mutation {
  inventorySetQuantities(input: InventorySetQuantitiesInput!): InventorySetQuantitiesPayload
  inventoryAdjustQuantities(input: InventoryAdjustQuantitiesInput!): InventoryAdjustQuantitiesPayload
  productCreate(product: ProductCreateInput, input: ProductInput, media: [CreateMediaInput!]): ProductCreatePayload
  productUpdate(product: ProductUpdateInput, input: ProductInput, media: [CreateMediaInput!]): ProductUpdatePayload
  productVariantsBulkCreate(productId: ID!, variants: [ProductVariantsBulkInput!]!, strategy: ProductVariantsBulkCreateStrategy, media: [CreateMediaInput!]): ProductVariantsBulkCreatePayload
  productVariantsBulkUpdate(productId: ID!, variants: [ProductVariantsBulkInput!]!, allowPartialUpdates: Boolean): ProductVariantsBulkUpdatePayload
  fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
  fulfillmentCancel(id: ID!): FulfillmentCancelPayload
  fulfillmentTrackingInfoUpdate(fulfillmentId: ID!, trackingInfoInput: FulfillmentTrackingInput!, notifyCustomer: Boolean): FulfillmentTrackingInfoUpdatePayload
  fulfillmentOrderLineItemsPreparedForPickup(input: FulfillmentOrderLineItemsPreparedForPickupInput!): FulfillmentOrderLineItemsPreparedForPickupPayload
  refundCreate(input: RefundInput!): RefundCreatePayload
  returnCreate(returnInput: ReturnInput!): ReturnCreatePayload
  returnRequest(input: ReturnRequestInput!): ReturnRequestPayload
  returnApproveRequest(input: ReturnApproveRequestInput!): ReturnApproveRequestPayload
  returnDeclineRequest(input: ReturnDeclineRequestInput!): ReturnDeclineRequestPayload
  returnCancel(id: ID!, notifyCustomer: Boolean): ReturnCancelPayload
  returnClose(id: ID!): ReturnClosePayload
  returnReopen(id: ID!): ReturnReopenPayload
  returnRefund(returnRefundInput: ReturnRefundInput!): ReturnRefundPayload
  reverseFulfillmentOrderDispose(dispositionInputs: [ReverseFulfillmentOrderDisposeInput!]!): ReverseFulfillmentOrderDisposePayload
  orderCancel(orderId: ID!, reason: OrderCancelReason!, refund: Boolean!, restock: Boolean!, notifyCustomer: Boolean, staffNote: String): OrderCancelPayload
  webhookSubscriptionCreate(topic: WebhookSubscriptionTopic!, webhookSubscription: WebhookSubscriptionInput!): WebhookSubscriptionCreatePayload
  webhookSubscriptionDelete(id: ID!): WebhookSubscriptionDeletePayload
}
`;
