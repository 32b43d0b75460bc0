// Leo Web's action cards and inbox (issue 16) in a real browser against the real daemon: asks of every input type
// opened through the agent route and held until the owner answers them in the app; the app refusing what the daemon
// would refuse without a request; a permission prompt and a questions card through the real `leo hook
// permission-request`, answered from the inbox.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LEO_BIN } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request, type Response } from '../helpers/http.js';
import { launchBrowser, pairPage, PHONE, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
/** Options as the HTTP route takes them (bare strings are MCP tool input only). */
const opts = (...labels: string[]) => labels.map((l) => ({ value: l, label: l }));
/** A person reads a card before answering it. */
const PACE_MS = 1500;

describe('Leo Web: action cards and the inbox', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const answerPosts: string[] = [];
  /** An agent's leo_chat_ask over its HTTP route: held until the owner answers. */
  const ask = (agent: string, body: unknown): Promise<Response> =>
    request(t.tcp, 'POST', `/api/agent/${agent}/chat/ask`, {
      token: t.daemon.agentToken,
      body: { timeout_s: 600, ...(body as object) },
    });
  const hook = (agent: string, payload: object) => {
    const child = spawn(process.execPath, [LEO_BIN, 'hook', 'permission-request'], {
      env: { ...process.env, LEO_AGENT: agent, LEO_SOCKET: t.daemon.paths.socketFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stdin.end(JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 's1', ...payload }));
    return new Promise<{ status: number | null; stdout: string }>((resolve) =>
      child.on('close', (status) => resolve({ status, stdout })),
    );
  };
  const card = (question: string) => page.locator('.action-card', { hasText: question });

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    for (const name of ['den', 'ivy'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    page = await (await browser.newContext({ viewport: PHONE })).newPage();
    page.on('pageerror', (err) => console.log(`# page error: ${err.message}`));
    page.on('request', (r) => r.url().endsWith('/answer') && answerPosts.push(r.url()));
    await pairPage(page, { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home });
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('asks of every input type stack in the inbox, are answered in place, and the held ask calls return the answers', async () => {
    const held = {
      buttons: ask('den', { question: 'Ship it?', options: opts('Yes', 'No') }),
      radio: ask('ivy', {
        question: 'Which branch?',
        input: {
          type: 'radio',
          allow_text: true,
          options: [{ value: 'main', label: 'main', description: 'the default' }, ...opts('dev')],
        },
      }),
      checkboxes: ask('den', {
        question: 'Which checks?',
        input: { type: 'checkboxes', min: 2, max: 3, options: opts('lint', 'types', 'tests', 'bench') },
      }),
      text: ask('ivy', { question: 'Release name?', input: { type: 'text', placeholder: 'e.g. Aurora' } }),
    };
    await page.locator('.inbox-link .badge', { hasText: '4' }).waitFor();
    await page.locator('.inbox-link').click();
    for (const q of ['Ship it?', 'Which branch?', 'Which checks?', 'Release name?']) await card(q).waitFor();
    // Newest first.
    assert.deepEqual(await page.locator('.action-card .question').allTextContents(), [
      'Release name?',
      'Which checks?',
      'Which branch?',
      'Ship it?',
    ]);
    assert.equal(await card('Release name?').locator('textarea').getAttribute('placeholder'), 'e.g. Aurora');
    await shots.take(page, 'inbox-asks');

    // Half-fill one card, then work on others: its input survives.
    await card('Release name?').locator('textarea').fill('Auro');
    await page.waitForTimeout(PACE_MS);
    // Below min: the shared validator refuses it in the app, with no request.
    await card('Which checks?').getByLabel('lint').check();
    await card('Which checks?').getByRole('button', { name: 'Send answer' }).click();
    await card('Which checks?').getByRole('alert').filter({ hasText: 'fewer than input.min 2' }).waitFor();
    assert.deepEqual(answerPosts, [], 'no request for an answer the daemon would refuse');
    await shots.take(page, 'inbox-refused');
    await card('Which checks?').getByLabel('tests').check();
    await card('Which checks?').getByRole('button', { name: 'Send answer' }).click();
    await card('Which checks?').locator('.settled', { hasText: 'lint, tests' }).waitFor();

    await page.waitForTimeout(PACE_MS);
    await card('Ship it?').getByRole('button', { name: 'Yes' }).click();
    await card('Ship it?').locator('.settled', { hasText: 'Yes' }).waitFor();
    await card('Which branch?').getByLabel('Or write an answer').fill('release/2');
    await card('Which branch?').getByRole('button', { name: 'Send answer' }).click();
    await card('Which branch?').locator('.settled', { hasText: 'release/2' }).waitFor();

    assert.equal(
      await card('Release name?').locator('textarea').inputValue(),
      'Auro',
      'the half-filled card kept its text',
    );
    await card('Release name?').locator('textarea').fill('Aurora');
    await card('Release name?').getByRole('button', { name: 'Send answer' }).click();
    await card('Release name?').locator('.settled', { hasText: 'Aurora' }).waitFor();
    await shots.take(page, 'inbox-settled');

    const returned = Object.fromEntries(
      await Promise.all(Object.entries(held).map(async ([k, p]) => [k, (await p).json] as const)),
    );
    for (const r of Object.values(returned)) assert.equal(r.ok, true, JSON.stringify(r));
    const answerOf = (k: string) => ({ values: returned[k].data.values, text: returned[k].data.text });
    assert.deepEqual(answerOf('buttons'), { values: ['Yes'], text: '' });
    assert.deepEqual(answerOf('radio'), { values: [], text: 'release/2' });
    assert.deepEqual(answerOf('checkboxes'), { values: ['lint', 'tests'], text: '' });
    assert.deepEqual(answerOf('text'), { values: [], text: 'Aurora' });
  });

  it('a permission prompt and a questions card from the real hook are answered from the inbox; the hook prints the decision', async () => {
    const permission = hook('den', {
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build', description: 'Clean' },
    });
    const questions = hook('ivy', {
      tool_name: 'AskUserQuestion',
      tool_input: {
        questions: [
          { question: 'Which size?', header: 'Size', multiSelect: false, options: [{ label: 'S' }, { label: 'L' }] },
          {
            question: 'Which toppings?',
            header: 'Toppings',
            multiSelect: true,
            options: [{ label: 'Ham' }, { label: 'Olives' }],
          },
        ],
      },
    });
    const prompt = page.locator('.action-card', { hasText: 'rm -rf build' });
    const qcard = page.locator('.action-card', { hasText: 'Which toppings?' });
    await prompt.waitFor();
    await qcard.waitFor();
    await shots.take(page, 'inbox-prompts');

    await page.waitForTimeout(PACE_MS);
    await prompt.getByLabel('Reason for denying (optional)').fill('not now');
    await prompt.getByRole('button', { name: 'Deny' }).click();
    await prompt.locator('.settled', { hasText: 'Denied from chat: not now' }).waitFor();
    const denied = await permission;
    assert.deepEqual(JSON.parse(denied.stdout).hookSpecificOutput.decision, {
      behavior: 'deny',
      message: 'Denied from Leo Chat: not now',
    });

    await qcard.getByLabel('L', { exact: true }).check();
    await qcard.getByLabel('Ham').check();
    await qcard.getByLabel('Other (Toppings)').fill('extra cheese');
    await qcard.getByRole('button', { name: 'Send answers' }).click();
    await qcard.locator('.settled', { hasText: 'Size: L' }).waitFor();
    const answered = JSON.parse((await questions).stdout).hookSpecificOutput.decision;
    assert.equal(answered.behavior, 'allow');
    assert.deepEqual(answered.updatedInput.answers, { 'Which size?': 'L', 'Which toppings?': ['Ham', 'extra cheese'] });
    await shots.take(page, 'inbox-prompts-settled');
  });
});
