// Debian's chromium driven by playwright-core, and screenshots of each test's main screen under
// test-output/screens/ (docs/console.md embeds copies of them).
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './harness.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENS = path.resolve(import.meta.dirname, '../../test-output/screens');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`No chromium at ${CHROMIUM}: install it (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH.`);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENS, { recursive: true });
  const file = path.join(SCREENS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** Fills the console's sign-in form as the harness's platform admin and sends it. */
export async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A console page (1280×800, 20 s to find what it waits for) signed in as the harness's platform admin, on Documents. */
export async function signedInConsole(browser: Browser, baseUrl: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(20_000);
  await page.goto(`${baseUrl}/app/`);
  await signIn(page);
  await page.getByRole('heading', { name: 'Documents' }).waitFor();
  return page;
}
