import { bigcommerce } from './bigcommerce/index.ts';
import { shopify } from './shopify/index.ts';
import { square } from './square/index.ts';
import type { ChannelType, ProviderModule } from './types.ts';

/** Every provider's connector module, by channel type. */
export const PROVIDERS: Record<ChannelType, ProviderModule> = { shopify, bigcommerce, square };
