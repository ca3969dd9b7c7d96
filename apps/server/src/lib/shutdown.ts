import type { Logger } from 'pino';

/** Runs the steps in order on SIGTERM or SIGINT; exits 1 if they take longer than the timeout. */
export function onShutdownSignal(logger: Logger, timeoutSeconds: number, steps: (() => Promise<unknown>)[]) {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    let step = 0;
    const timer = setTimeout(() => {
      logger.error({ step: `${step + 1} of ${steps.length}` }, 'shutdown took too long; exiting');
      process.exit(1);
    }, timeoutSeconds * 1000);
    timer.unref();
    try {
      for (; step < steps.length; step++) await (steps[step] as () => Promise<unknown>)();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * Stops an HTTP app: no new connections, in-flight requests answered, then closed. Node closes the connections
 * idle when the close begins; a keep-alive connection busy then stays open after its answer until its keep-alive
 * timeout (72 s in Fastify), which held every shutdown with a provider's webhook on the wire past its limit.
 * Those are closed as they turn idle.
 */
export async function closeHttp(app: { close(): Promise<unknown>; server: { closeIdleConnections(): void } }) {
  const idle = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearInterval(idle);
  }
}
