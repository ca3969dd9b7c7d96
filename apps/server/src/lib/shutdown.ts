import type { Logger } from 'pino';

/** Runs the steps in order on SIGTERM or SIGINT; exits 1 if they take longer than the timeout. */
export function onShutdownSignal(logger: Logger, timeoutSeconds: number, steps: (() => Promise<unknown>)[]) {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, timeoutSeconds * 1000);
    timer.unref();
    try {
      for (const step of steps) await step();
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
