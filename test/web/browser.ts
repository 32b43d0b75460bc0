import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { WEB_ROOT } from '../../src/http/web-routes.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { request, type Response } from '../helpers/http.js';
import { LEO_BIN, runLeoAsync } from '../helpers/cli.js';
import { spawn } from 'node:child_process';

/** Debian's chromium (set-up installs it for the tests); playwright-core downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** `args`: extra chromium switches (the fake microphone's, for voice notes): such a browser is launched for the caller alone. */
export async function launchBrowser(args: readonly string[] = []): Promise<Browser> {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`node scripts/setup.mjs --for-tests\``);
  assert.ok(
    fs.existsSync(path.join(WEB_ROOT, 'index.html')),
    `Leo Web is not built (${WEB_ROOT}): run \`npm run build\``,
  );
  // The runner's one Chromium for the whole suite (LEO_CHROMIUM_WS), unless a file needs switches of its own: each file
  // still gets contexts of its own, and no file pays a browser's start and stop. Closing a connected browser closes
  // the contexts it made and leaves the shared one running.
  const shared = process.env.LEO_CHROMIUM_WS;
  if (shared && args.length === 0) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: [...args] });
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/**
 * Screenshots every screen at both sizes into one folder per run, printed so a person can look at them: under
 * LEO_SCREENSHOTS_DIR (the test runner's, outside its temp folders, which it removes) or the system temp folder.
 */
export class Screenshots {
  readonly dir: string;
  constructor() {
    const parent = process.env.LEO_SCREENSHOTS_DIR ?? os.tmpdir();
    fs.mkdirSync(parent, { recursive: true });
    this.dir = fs.mkdtempSync(path.join(parent, 'leo-web-shots-'));
    console.log(`# Leo Web screenshots: ${this.dir}`);
  }
  async take(page: Page, name: string): Promise<void> {
    const size = page.viewportSize();
    // On CI no person looks at them, and a full-page PNG costs Chromium up to half a CPU-second: the view the test is
    // at alone keeps the step (and a failure to render it) at a third of the cost, without resizing the page. At CSS
    // pixels: a phone context's three device pixels a side made each PNG nine times the pixels, 2.4 s against 0.7 s.
    if (process.env.CI) {
      const label = size ? `${size.width}x${size.height}` : 'page';
      await page.screenshot({ path: path.join(this.dir, `${name}-${label}.png`), fullPage: true, scale: 'css' });
      return;
    }
    for (const [label, viewport] of [
      ['390x844', PHONE],
      ['1280x800', DESKTOP],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(this.dir, `${name}-${label}.png`), fullPage: true });
    }
    // The phone in dark mode too: the theme follows the system.
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(this.dir, `${name}-390x844-dark.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    if (size) await page.setViewportSize(size);
  }
}

/** Prints what goes wrong inside a page, so a failing wait says why. */
export function watchPage(page: Page): Page {
  page.on('pageerror', (err) => console.log(`# page error: ${err.message}`));
  page.on('console', (m) => m.type() === 'error' && console.log(`# page console: ${m.text()}`));
  return page;
}

/** What a real phone adds to a 390x844 window: touch, a dense screen, and the mobile viewport (meta viewport honoured). */
export const MOBILE = { isMobile: true, hasTouch: true, deviceScaleFactor: 3 } as const;

/**
 * A new browser context paired as its own device through a one-time code, showing the fleet. `mobile`: a phone as it
 * really is (MOBILE), not only a narrow desktop window. `fleet`: the device may run the fleet, as the owner's own
 * phone does (on unless a test is about a device without it).
 */
export async function pairedPage(
  browser: Browser,
  t: TestDaemon,
  device: string,
  { mobile = false, fleet = true }: { mobile?: boolean; fleet?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const issued = await request(t.tcp, 'POST', '/api/v1/devices/pairing-codes', {
    token: t.daemon.operatorToken,
    body: { name: device, fleet },
  });
  assert.equal(issued.status, 201, issued.text);
  const context = await browser.newContext({ viewport: PHONE, ...(mobile ? MOBILE : {}) });
  const page = watchPage(await context.newPage());
  await page.goto(issued.json.data.url);
  await page.locator('[data-connection="live"]').waitFor();
  return { context, page };
}

/**
 * Pairs `page` the way a person does: the link `leo device pair` prints, opened in the browser; resolves once the
 * fleet is live. `env` points the CLI at the test daemon's home.
 */
export async function pairPage(page: Page, env: NodeJS.ProcessEnv, deviceName = 'phone'): Promise<void> {
  const printed = await runLeoAsync(['device', 'pair', deviceName], env);
  assert.equal(printed.status, 0, printed.stderr);
  const link = /(http:\/\/\S+#pair=\S+)/.exec(printed.stdout)?.[1];
  assert.ok(link, printed.stdout);
  await page.goto(link);
  await page.locator('[data-connection="live"]').waitFor();
}

/** A Bash permission prompt from the real `leo hook permission-request`, as Claude Code calls it; resolves to its stdout. */
export function permissionRequest(t: TestDaemon, agent: string, command: string): Promise<string> {
  return hookRequest(t, agent, { tool_name: 'Bash', tool_input: { command, description: 'Run it' } });
}

/**
 * The real `leo hook permission-request` for any tool (AskUserQuestion makes a questions card), as Claude Code calls
 * it on the daemon's machine; resolves to its stdout.
 */
export function hookRequest(t: TestDaemon, agent: string, call: { tool_name: string; tool_input: object }) {
  const child = spawn(process.execPath, [LEO_BIN, 'hook', 'permission-request'], {
    env: { ...process.env, LEO_AGENT: agent, LEO_SOCKET: t.daemon.paths.socketFile },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stdin.end(JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 's1', ...call }));
  return new Promise<string>((resolve) => child.on('close', () => resolve(stdout)));
}

/** An agent's leo_chat_post over its HTTP route; resolves to the stored message's id. */
export async function agentPost(t: TestDaemon, agent: string, text: string): Promise<string> {
  const r = await request(t.tcp, 'POST', `/api/agent/${agent}/chat/post`, {
    token: t.daemon.agentToken,
    body: { text },
  });
  assert.equal(r.status, 200, r.text);
  return r.json.data.message_id as string;
}

/** An agent's leo_chat_ask over its HTTP route, held until the owner answers (or 600 s); resolves to the answer. */
export function agentAsk(t: TestDaemon, agent: string, ask: object): Promise<Response> {
  return request(t.tcp, 'POST', `/api/agent/${agent}/chat/ask`, {
    token: t.daemon.agentToken,
    body: { timeout_s: 600, ...ask },
  });
}
