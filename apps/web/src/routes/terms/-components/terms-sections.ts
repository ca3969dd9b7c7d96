export interface TermsSection {
  title: string;
  paragraphs: string[];
}

export const TERMS_SECTIONS: TermsSection[] = [
  {
    title: 'The service',
    paragraphs: [
      'Switchyard is an online back office for merchants who sell through several sales channels and physical stores. It keeps catalogs, inventory, orders, returns and shipping in step between your connected channels and your locations, routes orders to the location that should fulfil them, and prints picking lists and shipping labels.',
      'We may improve, change or add features over time. When a change removes a feature you rely on, we will tell you in advance where we reasonably can.',
    ],
  },
  {
    title: 'Your account',
    paragraphs: [
      'You must give accurate business and contact details when you register and keep them current. You are responsible for everything done with your account, so keep your password secret and tell us at once if you suspect someone else has used it.',
      'The person who registers must be entitled to bind the business named in the account to these terms.',
    ],
  },
  {
    title: 'Subscription, billing and cancellation',
    paragraphs: [
      'Switchyard is paid by subscription. The plan you choose sets the price and the billing period, and the fee is charged in advance at the start of each period to the payment method on file. Prices exclude taxes unless stated otherwise.',
      'If a payment fails we will retry it and let you know; an account whose payment stays overdue may be limited until it is settled. You can cancel at any time from your account settings. Cancellation takes effect at the end of the period already paid for, and fees for a period that has started are not refunded unless the law requires it.',
    ],
  },
  {
    title: 'Your data and connected channels',
    paragraphs: [
      'Your catalog, stock, order, customer and location data remain yours. You give us the right to store, copy and process that data only as needed to run the service for you, including sending it to the channels you connect.',
      'When you connect Shopify, BigCommerce, Square or another provider, you authorise Switchyard to read and change data in that account on your behalf, within the permissions you grant. Your use of those providers remains subject to their own terms. You can disconnect a channel at any time; we then stop syncing with it.',
      'You can export your data while your account is active. After an account is closed we delete its data within 90 days, except where the law requires us to keep records longer.',
    ],
  },
  {
    title: 'Acceptable use',
    paragraphs: [
      'Do not use Switchyard to break the law or the rules of a connected channel, to sell prohibited goods, to send unsolicited messages, or to upload malicious code. Do not probe, overload or try to get around the security or usage limits of the service, and do not access another merchant’s data.',
      'We may suspend an account that puts the service, other merchants or the public at risk. Where we can, we will warn you first and give you a chance to fix the problem.',
    ],
  },
  {
    title: 'Availability and support',
    paragraphs: [
      'We work to keep Switchyard available around the clock, but the service may be interrupted for maintenance, by failures of providers we depend on, or by events outside our control. Syncs that cannot run are retried and are never silently dropped; the Syncs screen shows their state.',
      'Support is available by e-mail at the address below.',
    ],
  },
  {
    title: 'Liability',
    paragraphs: [
      'The service is provided with reasonable skill and care, but we cannot guarantee that it will be free of errors or that a channel will accept every update. You remain responsible for checking the prices, stock levels and orders you publish.',
      'To the extent the law allows, we are not liable for indirect or consequential loss, lost profits or lost sales, and our total liability in any twelve months is limited to the fees you paid us in that period. Nothing in these terms limits liability that cannot be limited by law.',
    ],
  },
  {
    title: 'Termination',
    paragraphs: [
      'You may stop using Switchyard and close your account at any time. We may end the agreement with 30 days’ notice, or at once if you seriously breach these terms or fail to pay. On termination your access ends; you can ask for an export of your data within 30 days.',
    ],
  },
  {
    title: 'Changes to these terms',
    paragraphs: [
      'We may update these terms. We will give you at least 30 days’ notice of a material change by e-mail or in the app. If you continue to use Switchyard after a change takes effect, the new terms apply; if you do not accept them, you can cancel before then.',
    ],
  },
  {
    title: 'Contact',
    paragraphs: [
      'Questions, notices and complaints about the service or these terms can be sent to our support team by e-mail at the address below.',
    ],
  },
];
