import type { ChannelSummary } from '@switchyard/contracts';
import type { LinkProps } from '@tanstack/react-router';

/**
 * Where "Re-authorise" (or "Finish connecting") takes a channel: a platform with a known shop goes
 * straight to the provider's consent screen; one that never got that far asks for its shop first; Square
 * starts from the POS route.
 */
export function authorizeLink(channel: Pick<ChannelSummary, 'id' | 'type' | 'externalId'>): LinkProps {
  if (channel.type === 'square') return { to: '/channels/square', search: { channelId: channel.id } };
  if (!channel.externalId) return { to: '/channels/create/$id', params: { id: channel.id } };
  const shop = channel.type === 'shopify' ? { shop: channel.externalId } : { hash: channel.externalId };
  return {
    to: '/oauth/initiate/$service',
    params: { service: channel.type },
    search: { ...shop, channelId: channel.id },
  };
}
