import { format } from 'node:util';

type ConsoleKind = 'error' | 'warn';

const allowed: { kind: ConsoleKind; pattern: RegExp }[] = [];
const unexpected: string[] = [];

/** Lets the current test tolerate console output it causes on purpose; say why where you call it. */
export function allowConsole(kind: ConsoleKind, pattern: RegExp): void {
  allowed.push({ kind, pattern });
}

/** Routes console.error and console.warn into a list that the test setup checks after each test. */
export function watchConsole(): void {
  for (const kind of ['error', 'warn'] as const) {
    console[kind] = (...args: unknown[]) => {
      const text = format(...args);
      if (allowed.some((entry) => entry.kind === kind && entry.pattern.test(text))) return;
      unexpected.push(`console.${kind}: ${text}`);
    };
  }
}

/** What was printed unexpectedly since the last call; also forgets the current test's allowances. */
export function takeUnexpectedConsoleOutput(): string[] {
  allowed.length = 0;
  return unexpected.splice(0);
}
