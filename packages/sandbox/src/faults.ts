import { createRng, seedFrom } from './rng.ts';

/** Faults a test, the demo or a benchmark injects into one simulated shop's API. Rates are 0..1. */
export interface FaultConfig {
  /** Share of requests answered with the provider's own 429 (and its Retry-After / throttle signals). */
  rate429: number;
  /** Share answered with a 5xx. */
  rate5xx: number;
  /** Share that hang for `timeoutMs` and are then dropped without an answer. */
  rateTimeout: number;
  /** Added to every request, in milliseconds. */
  latencyMs: number;
  /** How long a "timeout" hangs before the socket is destroyed. */
  timeoutMs: number;
}

export type Fault = 'throttle' | 'error' | 'timeout' | null;

export const NO_FAULTS: FaultConfig = { rate429: 0, rate5xx: 0, rateTimeout: 0, latencyMs: 0, timeoutMs: 30_000 };

/** Fault settings per (provider, shop); draws are seeded so a run with the same settings fails the same way. */
export class Faults {
  private readonly configs = new Map<string, { config: FaultConfig; rng: ReturnType<typeof createRng> }>();

  set(provider: string, shop: string, config: Partial<FaultConfig>): FaultConfig {
    const key = `${provider}:${shop}`;
    const merged = { ...NO_FAULTS, ...this.configs.get(key)?.config, ...config };
    this.configs.set(key, { config: merged, rng: createRng(seedFrom(key)) });
    return merged;
  }

  get(provider: string, shop: string): FaultConfig {
    return this.configs.get(`${provider}:${shop}`)?.config ?? NO_FAULTS;
  }

  clear(provider?: string, shop?: string) {
    if (!provider) this.configs.clear();
    else this.configs.delete(`${provider}:${shop}`);
  }

  /**
   * Waits out the configured latency, then decides whether this request fails and how. Each provider
   * turns the answer into its own error shape (Shopify THROTTLED, BigCommerce 429 + X-Rate-Limit-*, …).
   */
  async draw(provider: string, shop: string): Promise<Fault> {
    const entry = this.configs.get(`${provider}:${shop}`);
    if (!entry) return null;
    const { config, rng } = entry;
    if (config.latencyMs > 0) await new Promise((r) => setTimeout(r, config.latencyMs));
    const roll = rng.next();
    if (roll < config.rate429) return 'throttle';
    if (roll < config.rate429 + config.rate5xx) return 'error';
    if (roll < config.rate429 + config.rate5xx + config.rateTimeout) return 'timeout';
    return null;
  }
}
