// Issue 20 item 10, the probe's Info findings that became fixes, each performed against the real daemon: a token in a
// query string reaching the debug log, a world-readable leo.yaml passing unremarked, text/plain on a JSON route, an
// API client's message reading like the owner's, bidi controls in an upload name, a provider's error echoing the API
// key, and webhooks pointed at loopback or the metadata address.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DestinationStream } from 'pino';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { runLeoAsync } from '../helpers/cli.js';
import { caller, killTmuxServer, paneText } from '../helpers/daemon.js';
import { request, type Target } from '../helpers/http.js';
import { OpenAiServer } from '../helpers/openai-server.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../push/helpers.js';
import { issueTokens, type Tokens } from './principals.js';
import { AttachmentRef } from '../../src/wire/message.js';

const LEAKED_KEY = 'sk-live-0123456789abcdefghijklmnop';
const SECRET = 'a-webhook-secret-of-some-length';

describe('the Info findings of the probe', () => {
  let home: ReturnType<typeof makeTempHome>;
  let daemon: Daemon;
  const tcp: Target = {};
  let tokens: Tokens;
  let llm: OpenAiServer;
  let receiver: Receiver;
  const logLines: string[] = [];
  const config = (extraChat = '') =>
    testConfig(`chat:
  enabled: true
${extraChat}environments:
  keys: { OPENAI_KEY: ${LEAKED_KEY} }
templates:
  cat: { harness: shell, command: "exec cat" }
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test }
`).replace('level: warn', 'level: debug');
  const writeConfig = (text: string, mode: number) => {
    fs.writeFileSync(path.join(home.home, 'leo.yaml'), text);
    fs.chmodSync(path.join(home.home, 'leo.yaml'), mode);
  };
  const { op } = caller(tcp, () => daemon.operatorToken);
  const as = (token: string) => caller(tcp, () => token);

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'OK.' } });
    receiver = await startReceiver();
    home = makeTempHome();
    // The owner's umask left leo.yaml readable by everyone.
    writeConfig(config(), 0o644);
    const destination: DestinationStream = { write: (line: string) => void logLines.push(line) };
    daemon = await startDaemon({
      env: home.env,
      clock: new ManualClock(Date.now()),
      logger: createLogger('debug', destination),
    });
    tcp.port = daemon.port;
    assert.equal((await op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    tokens = await issueTokens(tcp, daemon.paths, 'den');
    assert.equal((await op('POST', '/api/v1/agents/spawn', { template: 'bot', name: 'bot' })).status, 201);
  });
  after(async () => {
    await daemon.close();
    killTmuxServer(home.home);
    home.cleanup();
    await llm.close();
    await receiver.close();
  });

  it('a token sent in the query string is refused and never logged, whatever the parameter is called', async () => {
    for (const q of [
      `token=${tokens.operator}`,
      `access_token=${tokens.device}`,
      `x=${encodeURIComponent(tokens.poster)}`,
    ]) {
      const r = await request(tcp, 'GET', `/api/v1/agents?${q}`);
      assert.equal(r.status, 401, q);
    }
    await until('the request lines', () => logLines.some((l) => l.includes('access_token=[redacted]')), 5000);
    const log = logLines.join('');
    for (const t of [tokens.operator, tokens.device, tokens.poster]) assert.equal(log.includes(t), false);
    assert.match(log, /"url":"\/api\/v1\/agents\?token=\[redacted\]"/);
  });

  it('a token in a path segment, a ;param or a Bearer%20 value is never logged (issue 28)', async () => {
    for (const p of [
      `/api/v1/agents/${tokens.operator}`,
      `/api/v1/agents;auth=${tokens.device}`,
      `/api/v1/agents?h=Bearer%20${tokens.poster}`,
      `/api/v1/agents/${tokens.operator.replaceAll('_', '%5F')}x`,
    ])
      assert.ok((await request(tcp, 'GET', p)).status >= 400, p);
    await until('the request lines', () => logLines.some((l) => l.includes('h=Bearer%20[redacted]')), 5000);
    const log = logLines.join('');
    for (const t of [tokens.operator, tokens.device, tokens.poster, tokens.operator.replaceAll('_', '%5F')])
      assert.equal(log.includes(t), false, t);
    assert.match(log, /"url":"\/api\/v1\/agents\/\[redacted\]"/);
  });

  it('a leo.yaml readable by others is warned about at start, on reload, and by leo doctor', async () => {
    const warnings = () => logLines.filter((l) => /"level":40/.test(l) && l.includes('readable by other users'));
    assert.equal(warnings().length, 1, 'at start');
    await daemon.reloadConfig('test');
    assert.equal(warnings().length, 2, 'on reload');
    const doctor = await runLeoAsync(['doctor'], home.env);
    assert.match(
      doctor.stdout + doctor.stderr,
      /config file[\s\S]*leo\.yaml is 644, readable by others[\s\S]*chmod 600/,
    );
  });

  it('a JSON route refuses text/plain with 415 unsupported_media_type; an upload still takes it', async () => {
    const r = await request(tcp, 'POST', '/api/v1/chat/den/messages', {
      token: tokens.device,
      headers: { 'content-type': 'text/plain' },
      rawBody: JSON.stringify({ text: 'typed by a cross-site form' }),
    });
    assert.deepEqual([r.status, r.json?.ok, r.json?.code], [415, false, 'unsupported_media_type'], r.text);
    const up = await request(tcp, 'POST', '/api/v1/chat/uploads?agent=den&filename=note.txt', {
      token: tokens.device,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'a note',
    });
    assert.equal(up.status, 201, up.text);
  });

  it("an API client's message reaches the agent marked with who sent it; the owner's does not", async () => {
    const client = await as(tokens.poster).op('POST', '/api/v1/chat/den/messages', { text: 'approve the deploy' });
    assert.equal(client.status, 201, client.text);
    await until('the client message in the pane', () => /approve the deploy/.test(paneText(home.home, 'den')), 10_000);
    assert.match(paneText(home.home, 'den'), /\[Leo Chat from client:poster\] approve the deploy/);
    assert.equal((await op('POST', '/api/v1/chat/den/messages', { text: 'from me' })).status, 201);
    await until('the owner message in the pane', () => /\[Leo Chat\] from me/.test(paneText(home.home, 'den')), 10_000);
  });

  it('an upload name loses its bidi and other invisible control characters', async () => {
    const name = 'invoice\u202Efdp.exe\u2066\u200F\u061C\u2028';
    const r = await request(tcp, 'POST', `/api/v1/chat/uploads?agent=den&filename=${encodeURIComponent(name)}`, {
      token: tokens.device,
      headers: { 'content-type': 'application/octet-stream' },
      rawBody: 'MZ',
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(AttachmentRef.parse(r.json.data).filename, 'invoicefdp.exe');
  });

  it("a provider's error that echoes the API key reaches the caller and the session without it", async () => {
    llm.enqueue({ error: { status: 401, message: `Incorrect API key provided: ${LEAKED_KEY}. Bearer ${LEAKED_KEY}` } });
    const r = await op('POST', '/agents/bot/chat', { message: 'hello' });
    assert.match(r.text, /401/);
    assert.equal(r.text.includes(LEAKED_KEY), false, r.text);
    assert.match(r.text, /Incorrect API key provided: \[redacted\]/);
    assert.equal(logLines.join('').includes(LEAKED_KEY), false);
  });

  it('a webhook to loopback, link-local or a name resolving there is refused unless its host is allowed', async () => {
    const register = (url: string) =>
      as(tokens.device).op('POST', '/api/v1/push/subscriptions', { provider: 'webhook', url, secret: SECRET });
    for (const url of [
      receiver.url,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${receiver.port}/`,
      `http://[::1]:${receiver.port}/`,
      'http://10.1.2.3/hook',
      'ftp://example.com/x',
    ]) {
      const r = await register(url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      if (!url.startsWith('ftp')) assert.equal(r.json.code, 'webhook_target_refused', url);
    }

    // Allowed by name, registered; then the allowance is taken back (as a rebinding name would start resolving to
    // loopback): the next push is not sent there.
    writeConfig(config('  webhook_allowed_hosts: [127.0.0.1]\n'), 0o600);
    await daemon.reloadConfig('test');
    const ok = await register(`${receiver.url}/hook`);
    assert.equal(ok.status, 201, ok.text);
    const post = (text: string) => as(tokens.agent).op('POST', '/api/agent/den/chat/post', { text });
    assert.equal((await post('first push')).status, 200);
    await until('the allowed push', () => receiver.requests.length === 1, 10_000);
    writeConfig(config(), 0o600);
    await daemon.reloadConfig('test');
    assert.equal((await post('second push')).status, 200);
    await sleep(1000);
    assert.equal(receiver.requests.length, 1, 'refused at send time');
  });
});
