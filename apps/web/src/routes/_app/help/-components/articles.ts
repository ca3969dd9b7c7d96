// The help articles: plain text with a little markdown (paragraphs, "- " lists, "### " headings, **bold**,
// `code` and [links](/path)), so the search indexes exactly what the reader sees. Status lists are built from the
// contracts, so a label that changes there changes here.
import {
  ALLOCATION_STATUSES,
  FLAGGING_ALLOCATION_STATUSES,
  ORDER_STATUSES,
  SYNC_STATUS_LABELS,
  SYNC_TYPE_LABELS,
} from '@switchyard/contracts';
import { SUPPORT_EMAIL } from '../../../../lib/support.ts';

export interface HelpArticle {
  id: string;
  title: string;
  section: 'Getting started' | 'Stock numbers' | 'Statuses' | 'Using Switchyard' | 'Channels' | 'Support';
  /** Words a merchant may search for that the text does not use. */
  keywords: string;
  body: string;
}

const ORDER_STATUS_MEANINGS: Record<keyof typeof ORDER_STATUSES, string> = {
  0: 'the channel has the order but it is not confirmed yet (often: not paid yet).',
  1: 'confirmed and waiting to be fulfilled. Its units are reserved at the location routing chose.',
  2: 'some lines or units have shipped, others have not.',
  3: 'every unit has shipped. On hand and reserved dropped once, when it was fulfilled.',
  4: 'a pickup or curbside order is packed and waiting at its store for the customer.',
  5: 'the customer collected it at the store.',
  6: 'held by you or the channel: nothing moves until it is released to Pending or Open.',
  7: 'cancelled at the channel or here. Its reservations were released; a cancelled order is never flagged.',
  8: 'the customer was refunded.',
  9: 'something went wrong with the order; its timeline on the order page says what.',
};

const SYNC_RUN_STATUS_MEANINGS = {
  queued: '**Queued**: the run is waiting for a worker.',
  running: '**Running**: under way; the screen shows its progress live.',
  succeeded: '**Succeeded**: every item went through.',
  partial:
    '**Partly failed**: the run finished, but the channel refused some items. Open the run to see each failed item and its reason, and retry them.',
  failed:
    '**Failed**: the run stopped as a whole (the channel could not be reached, or refused our access). It is retried with growing pauses; a job that fails every retry is listed under "Jobs that failed every retry" on the Syncs screen.',
};

const LISTING_STATUS_MEANINGS = {
  0: 'not synced: the product is not (or no longer) kept in step with this channel.',
  1: 'synced: the channel shows what Switchyard holds.',
  2: 'pending: a change is on its way to the channel.',
  3: 'error: the channel refused the last change; the product page and the Syncs screen say why.',
};

const list = (lines: string[]) => lines.map((line) => `- ${line}`).join('\n');

export const HELP_ARTICLES: HelpArticle[] = [
  {
    id: 'getting-started',
    title: 'Getting started',
    section: 'Getting started',
    keywords: 'setup onboarding first steps plan subscribe connect import locations checklist',
    body: `Switchyard keeps your catalog, stock and orders in step across Shopify, BigCommerce and your Square point of sale. Our ledger is the one count of your stock; every channel is told what it may sell.

### The first steps
${list([
  '**Choose a plan** under [Plans and pricing](/subscription/plans). In sandbox mode the test card 4242 4242 4242 4242 pays.',
  '**Add your locations** (stores and warehouses) under [Locations](/locations): each has a store id, whether it ships and serves pickup, and a routing priority (a lower number is tried first).',
  '**Connect your channels** under [Channels](/channels): Shopify and BigCommerce by their shop address, Square by signing in to Square. See "Connecting Shopify", "Connecting BigCommerce" and "Connecting Square".',
  "**Map each channel location** to one of your locations in the channel's settings, and choose which ones feed the channel's stock.",
  '**Import the catalog** from the channel settings. Products are matched by SKU across channels.',
  "**Watch it move**: the [Syncs](/syncs) screen shows every run, and [Orders](/orders) every channel's orders.",
])}

The dashboard's getting-started checklist ticks these off as you go.`,
  },
  {
    id: 'available-to-sell',
    title: 'How "available to sell" is computed',
    section: 'Stock numbers',
    keywords: 'available quantity formula on hand reserved stock level push channel oversell calculation',
    body: `Each channel is told, for each SKU and each of its locations, how many units it may sell:

**available = on hand − reserved − buffer − safety stock**, never below 0.

${list([
  '**On hand**: units physically at your location, from our ledger. Every change (a POS sale, a channel order, a return, an adjustment, a count) is a movement in the ledger, so the number can always be explained.',
  '**Reserved**: units promised to open orders at that location (see "Reservations").',
  '**Buffer**: the dynamic buffer for that SKU, location and channel, if you set one (see "Buffers").',
  '**Safety stock**: the channel\'s own reserve on every SKU and location, set in the channel\'s advanced settings (see "Safety stock").',
])}

A channel location is pushed only when it feeds the channel and is mapped to one of your locations. A location you disabled pushes 0.

Only what differs from what the channel last acknowledged is sent, in the provider's largest batch; on Shopify with compare-and-set, a change the channel made meanwhile is taken in rather than overwritten.

### Example
50 on hand, 6 reserved by open orders, a buffer of 10 for Shopify at that store and a safety stock of 2: Shopify may sell 50 − 6 − 10 − 2 = **32**. BigCommerce, with no buffer and no safety stock, may sell 44.`,
  },
  {
    id: 'buffers',
    title: 'Buffers (dynamic buffers)',
    section: 'Stock numbers',
    keywords: 'buffer dynamic buffers hold back reserve per channel sku location oversell protection',
    body: `A buffer holds units back from one channel for one SKU at one location, so that channel stops selling before the shelf is empty. It is set under [Dynamic buffers](/dynamic-buffers) as **SKU, location (store id), channel and quantity**.

${list([
  'The buffer is subtracted from on hand less reserved before the channel is told its available quantity; the result never goes below 0.',
  'It applies to that channel only: your other channels keep selling those units.',
  'Changing or deleting a buffer pushes the new available quantity to that channel.',
  'One buffer per SKU, location and channel. For a reserve on every SKU of a channel, use its safety stock instead.',
])}

Use buffers for fast sellers on a marketplace that is slow to report its sales, or to keep a few units for walk-in customers.`,
  },
  {
    id: 'safety-stock',
    title: 'Safety stock',
    section: 'Stock numbers',
    keywords: 'safety stock channel reserve advanced settings all skus',
    body: `Safety stock is a number of units a channel never sees, on every SKU at every location it sells from. Set it in the channel's **Advanced** settings (it starts at 0).

It is subtracted together with any buffer: available = on hand − reserved − buffer − safety stock, never below 0. A channel with a safety stock of 2 shows a SKU with 2 free units as sold out.`,
  },
  {
    id: 'reservations',
    title: 'Reservations and allocations',
    section: 'Stock numbers',
    keywords: 'reserved reservation allocation allocated order routing committed flagged insufficient stock',
    body: `When an order comes in, its lines are **allocated**: each line's units are reserved at a location. By default a POS sale takes its units at its own store, a pickup at its pickup store, and anything else at the enabled locations that ship, lowest priority number first (among equals, the one the channel took the units from); [Order routing](/order-routing) rules can choose otherwise.

${list([
  'Reserving locks the stock levels it changes, so two orders can never take the last unit twice.',
  'Reserved units stay on hand but are no longer available to sell on any channel.',
  'When the order is fulfilled or picked up, on hand and reserved drop once together; when it is cancelled, the reservation is released.',
  'A channel lowers its own stock when it takes an order and reports it too; Switchyard matches that report with the order so each unit is counted once, in either order of arrival.',
  `A line that cannot be allocated is **flagged**: allocation status ${FLAGGING_ALLOCATION_STATUSES.map((s) => `${s} (${ALLOCATION_STATUSES[s]})`).join(', ')}. Flagged orders show on the orders list and in your notifications until they are routed again.`,
])}

### Allocation statuses
${list(Object.entries(ALLOCATION_STATUSES).map(([n, label]) => `**${n} ${label}**`))}`,
  },
  {
    id: 'order-statuses',
    title: 'What each order status means',
    section: 'Statuses',
    keywords: 'order status pending open fulfilled cancelled refunded on hold pickup error filter',
    body: `Every order has one status. The orders list shows Open by default; "All" shows every status.

${list(Object.entries(ORDER_STATUSES).map(([n, label]) => `**${label}** (${n}): ${ORDER_STATUS_MEANINGS[Number(n) as keyof typeof ORDER_STATUSES]}`))}

The order page offers the status changes that are allowed from where the order is (putting it on hold and releasing it, for example). Shipping, pickup and cancelling have their own actions, because they move stock.`,
  },
  {
    id: 'sync-statuses',
    title: 'What each sync status means',
    section: 'Statuses',
    keywords:
      'sync status run queued running succeeded partial partly failed failed dead letter retry product sync status',
    body: `Every run between Switchyard and a channel is listed under [Syncs](/syncs): ${Object.values(SYNC_TYPE_LABELS).join(', ')}.

### A run's status
${list(Object.values(SYNC_RUN_STATUS_MEANINGS))}

### A product's sync status on a channel
${list(Object.entries(SYNC_STATUS_LABELS).map(([n, label]) => `**${label}** (${n}): ${LISTING_STATUS_MEANINGS[Number(n) as 0 | 1 | 2 | 3]}`))}

A failed run and a job that failed every retry also raise a notification.`,
  },
  {
    id: 'notifications',
    title: 'Notifications and the daily e-mail',
    section: 'Using Switchyard',
    keywords: 'notifications bell alerts email digest unread mark read low stock threshold waiting orders',
    body: `The bell in the header counts unread notifications; [Notifications](/notifications) lists them all. Each links to where it is handled.

${list([
  '**Sync runs with failed items**, and jobs that failed every retry.',
  '**Flagged orders**: a line without stock, an unknown SKU, or a store that rejected it.',
  '**Orders waiting too long**: still to be fulfilled after the number of hours you set (24 by default).',
  "**Low and out-of-stock SKUs**: when a channel's available quantity falls to your low-stock threshold (5 by default) or to 0. Only the change is notified, not every push.",
  '**A channel disconnected or uninstalled**, **a failed payment** and **new returns**.',
])}

A condition that repeats while its notification is unread updates that one notification ("happened 3 times") instead of adding more. Notifications older than 90 days are removed.

Under Notifications → Settings choose, per type, in-app only or also e-mail: e-mailed types come together in one digest a day, at the hour you choose in your account's time zone, and only when there is something new.`,
  },
  {
    id: 'keyboard-shortcuts',
    title: 'Keyboard shortcuts',
    section: 'Using Switchyard',
    keywords: 'keyboard shortcuts keys hotkeys accessibility tab enter',
    body: `Everything can be reached with **Tab** and used with **Enter** or **Space**. On top of that:

${list([
  '**Enter** in a search box (orders, products) searches at once instead of waiting for you to stop typing.',
  "**Ctrl+Enter** (⌘+Enter on a Mac) in an order's comment box adds the comment.",
  'On [Notifications](/notifications): **↓/↑** or **j/k** move between notifications, **Home/End** jump to the first or last, **Enter** opens one, **m** marks it read.',
  'On this help page: **/** puts the cursor in the search box.',
  '**Escape** closes a menu, dialog or the notifications dropdown.',
])}`,
  },
  {
    id: 'connect-shopify',
    title: 'Connecting Shopify',
    section: 'Channels',
    keywords: 'shopify connect oauth install app shop myshopify reauthorise reconnect uninstall',
    body: `${list([
      'On [Channels](/channels), choose **Connect** for Shopify. A pending channel is created and Switchyard asks for your shop address (for example **my-shop.myshopify.com**).',
      'You go to Shopify to approve the Switchyard app, then come back to the channel.',
      "Map each Shopify location to one of your locations and choose which feed Shopify's stock; import the catalog.",
      'If the app is uninstalled from Shopify, the channel becomes **disconnected** (its settings are kept) and you are notified. **Re-authorise** on the channel connects it again.',
    ])}

A pending channel takes a place on your plan until it is connected or discarded.`,
  },
  {
    id: 'connect-bigcommerce',
    title: 'Connecting BigCommerce',
    section: 'Channels',
    keywords: 'bigcommerce connect store hash oauth install app reauthorise',
    body: `${list([
      "On [Channels](/channels), choose **Connect** for BigCommerce and give your **store hash**: it is in your control panel's address (store-abc123.mybigcommerce.com has the hash abc123).",
      'Approve the Switchyard app in BigCommerce; you come back to the channel.',
      "Map BigCommerce's locations to yours, choose which feed its stock, and import the catalog.",
      'Uninstalling the app in BigCommerce disconnects the channel and notifies you; **Re-authorise** connects it again.',
    ])}`,
  },
  {
    id: 'connect-square',
    title: 'Connecting Square (point of sale)',
    section: 'Channels',
    keywords: 'square pos point of sale connect store locations sign in reauthorise',
    body: `${list([
      'On [Channels](/channels), choose **Connect Square POS** and sign in to Square to approve Switchyard.',
      'Your Square locations are your stores: give each of your locations its Square store id to map them.',
      'POS sales move stock at their store at once; Square Online pickup and shipping orders come in as orders.',
      'If Square access is revoked, the channel shows an error and you are notified; **Re-authorise** on the channel fixes it.',
    ])}`,
  },
  {
    id: 'api',
    title: 'API reference',
    section: 'Using Switchyard',
    keywords: 'api rest reference openapi swagger developer api key v1 v2 integration',
    body: `Switchyard's REST API (versions v1 and v2) is documented in the [API reference](/api/docs), generated from the running server, with every route, its input and its answers.

Create an API key under [Settings → App management](/settings/app-management) and send it as **Authorization: Bearer** followed by the key. A key acts for your account only.`,
  },
  {
    id: 'support',
    title: 'Contacting support',
    section: 'Support',
    keywords: 'support contact help email problem bug question',
    body: `Write to **${SUPPORT_EMAIL}** ([e-mail us](mailto:${SUPPORT_EMAIL})). To help us answer quickly, include:

${list([
  'your business name and the e-mail you sign in with;',
  'what you did, what you expected and what happened, with the time it happened;',
  'the order number or sync run number (#123 on the Syncs screen) it is about;',
  'the error text shown, if any.',
])}

Never send your password or an API key: support never asks for them.`,
  },
];
