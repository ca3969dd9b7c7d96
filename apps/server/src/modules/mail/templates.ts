/** The product's e-mails, each as HTML and plain text, with links built from the public URL. */
import {
  DEFAULT_PICKUP_EMAILS,
  PICKUP_INSTRUCTIONS,
  type PickupEmailText,
  renderPickupText,
} from '@switchyard/contracts';

export type MailTemplate =
  | { template: 'confirm'; firstname: string; link: string }
  | { template: 'reset'; firstname: string; link: string }
  | { template: 'email_change'; firstname: string; link: string; newEmail: string }
  | { template: 'welcome'; firstname: string; link: string }
  | { template: 'channel_disconnected'; firstname: string; link: string; channelName: string; provider: string }
  | { template: 'payment_failed'; firstname: string; link: string; planName: string; reason: string; graceDays: number }
  | { template: 'subscription_canceled'; firstname: string; link: string; planName: string }
  | {
      template: 'pickup_ready' | 'picked_up';
      /** The customer's name (the greeting) and the shop's. */
      firstname: string;
      customerName?: string | null;
      shopName: string;
      orderNumber: string;
      storeName: string;
      storeAddress: string;
      curbside: boolean;
      /** Directions to the store (a maps search of its address). */
      link: string;
      items: string[];
      /** The account's texts for this e-mail (Settings → Fulfillment); absent: the defaults. */
      text?: PickupEmailText;
    };

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  links: string[];
}

const PRODUCT = 'Switchyard';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function layout(title: string, paragraphs: string[], action: { label: string; href: string }, footer?: string) {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  return `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">
<table role="presentation" width="100%" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">
<tr><td><h1 style="font-size:20px;margin:0 0 24px">${escapeHtml(title)}</h1>${body}
<p style="margin:24px 0"><a href="${escapeHtml(action.href)}" style="background:#228be6;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#52606d">If the button does not work, open this address: ${escapeHtml(action.href)}</p>
${footer ? `<p style="margin:24px 0 0;font-size:13px;color:#52606d">${escapeHtml(footer)}</p>` : ''}</td></tr></table></body></html>`;
}

function render(
  subject: string,
  greeting: string,
  lines: string[],
  action: { label: string; href: string },
  footer: string,
) {
  const paragraphs = [greeting, ...lines];
  const text = `${paragraphs.join('\n\n')}\n\n${action.label}: ${action.href}\n\n${footer}\n\n— ${PRODUCT}\n`;
  return { subject, text, html: layout(subject, paragraphs, action, footer), links: [action.href] };
}

export function renderMail(mail: MailTemplate): RenderedMail {
  const hello = `Hello ${mail.firstname},`;
  switch (mail.template) {
    case 'confirm':
      return render(
        `Confirm your ${PRODUCT} account`,
        hello,
        [`Thanks for signing up for ${PRODUCT}. Confirm your e-mail address to finish setting up your account.`],
        { label: 'Confirm my account', href: mail.link },
        'The link works once and expires in 7 days. If you did not sign up, ignore this e-mail.',
      );
    case 'reset':
      return render(
        `Reset your ${PRODUCT} password`,
        hello,
        ['Someone asked to reset the password of your account. Choose a new password with the link below.'],
        { label: 'Choose a new password', href: mail.link },
        'The link works once and expires in 1 hour. If you did not ask for it, ignore this e-mail; your password stays as it is.',
      );
    case 'email_change':
      return render(
        `Confirm your new ${PRODUCT} e-mail address`,
        hello,
        [`Confirm that you want to sign in to ${PRODUCT} with ${mail.newEmail} from now on.`],
        { label: 'Confirm the new address', href: mail.link },
        'Until you confirm, your old address stays in use. The link expires in 24 hours.',
      );
    case 'welcome':
      return render(
        `Welcome to ${PRODUCT}`,
        hello,
        [
          'Your account is confirmed.',
          'Next: choose a plan, connect your Shopify, BigCommerce or Square store, and map your locations.',
        ],
        { label: `Open ${PRODUCT}`, href: mail.link },
        'Questions? Reply to this e-mail or write to support@switchyard.app.',
      );
    case 'channel_disconnected':
      return render(
        `${mail.channelName} was disconnected`,
        hello,
        [
          `The ${PRODUCT} app was uninstalled from your ${mail.provider} shop, so ${mail.channelName} is disconnected: stock, products and orders no longer sync with it.`,
          'Its settings are kept. To sync again, re-authorise the channel.',
        ],
        { label: 'Open your channels', href: mail.link },
        'If you did not uninstall the app, someone with access to your shop did; check who can manage its apps.',
      );
    case 'payment_failed':
      return render(
        `Your ${PRODUCT} payment failed`,
        hello,
        [
          `We could not collect the payment for your ${mail.planName} plan: ${mail.reason}`,
          `Update your payment method within ${mail.graceDays} days to keep full use of ${PRODUCT}; after that your account becomes read-only until a payment succeeds.`,
        ],
        { label: 'Update your payment method', href: mail.link },
        'We will retry the payment automatically. Questions? Reply to this e-mail.',
      );
    case 'subscription_canceled':
      return render(
        `Your ${PRODUCT} subscription has ended`,
        hello,
        [
          `Your ${mail.planName} subscription is canceled and will not renew. Your data is kept.`,
          'To sync stock, products and orders again, choose a plan.',
        ],
        { label: 'Choose a plan', href: mail.link },
        'If you did not expect this, reply to this e-mail.',
      );
    case 'pickup_ready':
    case 'picked_up': {
      // The merchant's texts (or the defaults), with the same placeholders the settings page previews.
      const stage = mail.template === 'pickup_ready' ? 'ready' : 'picked_up';
      const kind = mail.curbside ? 'curbside_pickup' : 'pickup';
      const { subject, paragraphs } = renderPickupText(mail.text ?? DEFAULT_PICKUP_EMAILS[stage], {
        first_name: mail.firstname,
        customer_name: mail.customerName || mail.firstname,
        shop_name: mail.shopName,
        order_number: mail.orderNumber,
        store_name: mail.storeName,
        store_address: mail.storeAddress,
        pickup_type: mail.curbside ? 'curbside pickup' : 'pickup',
        items: mail.items.join('; '),
        pickup_instructions: PICKUP_INSTRUCTIONS[kind],
      });
      const action = { label: stage === 'ready' ? 'Directions to the store' : 'Store directions', href: mail.link };
      const text = `${paragraphs.join('\n\n')}\n\n${action.label}: ${action.href}\n`;
      return { subject, text, html: layout(subject, paragraphs, action), links: [action.href] };
    }
  }
}
