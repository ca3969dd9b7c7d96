import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, 'artifacts');

/** Debian's Chromium, headless, with nothing reaching outside this machine. */
export function useBrowser() {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterEach(async (context) => {
    // A failed journey leaves what its pages showed: address, visible text and a screenshot in e2e/artifacts.
    if (context.task.result?.state === 'fail') {
      mkdirSync(ARTIFACTS, { recursive: true });
      const pages = contexts.flatMap((c) => c.pages());
      for (const [i, page] of pages.entries()) {
        const name = `${context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}-${i}`;
        const text = await page.innerText('body', { timeout: 2000 }).catch((err: Error) => `(no text: ${err.message})`);
        console.error(`[e2e] ${context.task.name}: page ${i} at ${page.url()}\n${text.slice(0, 2000)}`);
        for (const problem of problemsOf(page)) console.error(`[e2e] ${problem}`);
        await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true }).catch(() => undefined);
      }
    }
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh page in its own context (its own local storage), failing on page errors and CSP violations. */
  return async function newPage(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light' });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) problems.push(msg.text());
    });
    (page as Page & { problems: string[] }).problems = problems;
    return page;
  };
}

export const problemsOf = (page: Page) => (page as Page & { problems: string[] }).problems;

/** Signs in through the sign-in page and waits to leave it. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Opens where a link in a live list leads. The orders and fulfillment lists take in new work without a reload,
 * so a row can move between Playwright's check of the link and its click; the click then lands beside it (a
 * journey under load stayed on /orders for 30 s). Going to the link's own address tests the same page.
 */
export async function openLink(page: Page, link: Locator) {
  const href = await link.getAttribute('href');
  if (!href) throw new Error('the link has no address');
  await page.goto(new URL(href, page.url()).href);
}

/**
 * What a person would find wrong with a table at the page's width: it runs past its box (a sideways scroll), a
 * column header takes two lines, or a badge's word is cut to "…". Empty when every column reads at a glance.
 */
export async function tableLayoutProblems(table: Locator): Promise<string[]> {
  // Plain loops and no named helpers: the function runs in the page as written.
  return table.evaluate((el) => {
    const problems: string[] = [];
    const box = el.closest('.mantine-TableScrollContainer-scrollContainer') ?? el.parentElement;
    if (box && (el as HTMLElement).offsetWidth > box.clientWidth + 1)
      problems.push(`scrolls sideways: ${(el as HTMLElement).offsetWidth} px in ${box.clientWidth}`);
    for (const th of el.querySelectorAll('thead th')) {
      const range = document.createRange();
      range.selectNodeContents(th);
      // Line boxes: the text's pieces whose tops differ by more than half a line (an arrow glyph sits a pixel off).
      const tops = [...range.getClientRects()]
        .filter((r) => r.width > 0 && r.height > 0)
        .map((r) => r.top)
        .sort((a, b) => a - b);
      let lines = tops.length > 0 ? 1 : 0;
      for (let i = 1; i < tops.length; i++) if ((tops[i] as number) - (tops[i - 1] as number) > 8) lines++;
      if (lines > 1) problems.push(`header on ${lines} lines: ${th.textContent?.trim()}`);
    }
    // A badge's label ends in "…" even a fraction of a pixel short of its word ("OPEN" read "OP…"), which
    // scrollWidth rounds away: its width is compared with an unconstrained copy's.
    for (const label of el.querySelectorAll('.mantine-Badge-label')) {
      const copy = label.closest('.mantine-Badge-root')?.cloneNode(true) as HTMLElement | undefined;
      if (!copy) continue;
      Object.assign(copy.style, { position: 'absolute', visibility: 'hidden', width: 'max-content', maxWidth: 'none' });
      document.body.appendChild(copy);
      const whole = copy.querySelector('.mantine-Badge-label')?.getBoundingClientRect().width ?? 0;
      copy.remove();
      if (label.getBoundingClientRect().width < whole - 0.1) problems.push(`badge cut short: ${label.textContent}`);
    }
    return [...new Set(problems)];
  });
}
