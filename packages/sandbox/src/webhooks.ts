import { post } from './post.ts';

/** One webhook the sandbox sent (or is still trying to send), as the control API reports it. */
export interface Delivery {
  id: string;
  provider: string;
  shop: string;
  topic: string;
  url: string;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  responseStatus: number | null;
  createdAt: string;
}

export interface OutgoingWebhook {
  provider: string;
  shop: string;
  topic: string;
  url: string;
  headers: Record<string, string>;
  /** Sent byte for byte: signatures are computed over exactly this text. */
  body: string;
  /** Called once when the delivery gives up after its last attempt. */
  onFailed?: () => void;
}

const MAX_ACKS = 200_000;

/**
 * Sends webhooks the way providers do: asynchronously, after the change that caused them, retried with
 * backoff when the receiver fails. `settled()` lets a test wait until everything sent so far has landed.
 */
export class WebhookSender {
  readonly log: Delivery[] = [];
  /**
   * How long each delivered webhook waited for the receiver's answer (ms, the attempt that succeeded), in the
   * order they landed: what a provider waits for. `acked` counts every one ever landed; the list keeps the last
   * MAX_ACKS, so a reader asks for those since a count it read before (`acksSince`).
   */
  private readonly ackTimes: number[] = [];
  private acked = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private seq = 0;

  private readonly options: { maxAttempts?: number; retryDelayMs?: number; maxConcurrent?: number };
  /** Deliveries on the wire now, and those waiting for a turn: a big stock push must not open thousands of sockets. */
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: { maxAttempts?: number; retryDelayMs?: number; maxConcurrent?: number } = {}) {
    this.options = options;
  }

  private async turn(): Promise<() => void> {
    const limit = this.options.maxConcurrent ?? 16;
    if (this.active >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    return () => {
      this.active--;
      this.waiting.shift()?.();
    };
  }

  send(webhook: OutgoingWebhook): Delivery {
    const delivery: Delivery = {
      id: `dlv_${++this.seq}`,
      provider: webhook.provider,
      shop: webhook.shop,
      topic: webhook.topic,
      url: webhook.url,
      attempts: 0,
      status: 'pending',
      responseStatus: null,
      createdAt: new Date().toISOString(),
    };
    this.log.push(delivery);
    if (this.log.length > 5000) this.log.splice(0, this.log.length - 5000);
    const task = this.deliver(webhook, delivery).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
    return delivery;
  }

  /** While held: deliveries wait before going on the wire, until `release()`. */
  private holding: { release: () => void; until: Promise<void> } | null = null;

  /**
   * Holds every delivery not yet on the wire (a provider's own backlog, as after an outage of its webhook system,
   * which then sends what gathered as fast as it sends): benches place orders while held, then release them, to
   * time the receiver on a backlog without the orders' making in the window. `settled()` waits for a release.
   */
  hold() {
    if (this.holding) return;
    let release = () => {};
    const until = new Promise<void>((r) => {
      release = r;
    });
    this.holding = { release, until };
  }

  /** Lets held deliveries go (the sender's usual number at once); answers how many were waiting. */
  release(): number {
    const waiting = this.held;
    this.held = 0;
    this.holding?.release();
    this.holding = null;
    return waiting;
  }

  /** Deliveries waiting for a release. */
  private held = 0;

  private async deliver(webhook: OutgoingWebhook, delivery: Delivery) {
    const maxAttempts = this.options.maxAttempts ?? 5;
    const baseDelay = this.options.retryDelayMs ?? 200;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (this.holding) {
        this.held++;
        while (this.holding) await this.holding.until;
      }
      delivery.attempts = attempt;
      const release = await this.turn();
      const started = performance.now();
      try {
        const status = await post(
          webhook.url,
          { 'content-type': 'application/json', ...webhook.headers },
          webhook.body,
          5000,
        );
        delivery.responseStatus = status;
        if (status >= 200 && status < 300) {
          delivery.status = 'delivered';
          this.ackTimes.push(performance.now() - started);
          this.acked++;
          if (this.ackTimes.length > MAX_ACKS) this.ackTimes.splice(0, this.ackTimes.length - MAX_ACKS);
          return;
        }
      } catch {
        delivery.responseStatus = null;
      } finally {
        release();
      }
      if (attempt < maxAttempts) await new Promise((r) => setTimeout(r, baseDelay * 2 ** (attempt - 1)));
    }
    delivery.status = 'failed';
    webhook.onFailed?.();
  }

  /** The answer times of the webhooks landed after the first `from` (a count `acksSince` answered before). */
  acksSince(from: number): { count: number; ms: number[] } {
    const kept = this.acked - this.ackTimes.length;
    return { count: this.acked, ms: this.ackTimes.slice(Math.max(0, from - kept)) };
  }

  /** Resolves when every delivery started so far has succeeded or given up. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
