// Delivery into a program whose screen Leo cannot read (harness: shell), through the real daemon and real tmux, with
// programs that each meet the Enter rule differently (issue 15 item 11). Each writes every line it takes to a file,
// so the file says exactly what arrived and how many Enters it got.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-shell-delivery-'));
const out = (name: string) => path.join(dir, `${name}.out`);

/**
 * A raw-mode line reader that echoes what it is typed and writes each line it takes to its file; Enters it ignores
 * (the first `ignore`, or all) are logged as `(ignored Enter)`, so a test can count every press.
 */
const RAW_READER = path.join(dir, 'raw-reader.mjs');
fs.writeFileSync(
  RAW_READER,
  `import fs from 'node:fs';
const [file, ignore] = [process.argv[2], Number(process.argv[3])];
let line = '', enters = 0;
process.stdin.setRawMode(true);
process.stdout.write('ready> ');
process.stdin.on('data', (b) => {
  for (const ch of b.toString()) {
    if (ch !== '\\r') { line += ch; process.stdout.write(ch); continue; }
    if (++enters <= ignore) { fs.appendFileSync(file, '(ignored Enter)\\n'); continue; }
    fs.appendFileSync(file, line + '\\n');
    line = '';
    process.stdout.write('\\r\\nready> ');
  }
});
`,
);
const node = process.execPath;

const CONFIG = `
templates:
  quiet: { harness: shell, command: "exec cat > ${out('quiet')}" }
  silent: { harness: shell, command: "stty -echo; exec cat > ${out('silent')}" }
  swallows: { harness: shell, command: "exec ${node} ${RAW_READER} ${out('swallows')} 1" }
  stuck: { harness: shell, command: "exec ${node} ${RAW_READER} ${out('stuck')} 99" }
`;

describe('delivery into a program whose screen Leo cannot read', () => {
  let t: TestDaemon;
  const send = async (agent: string, text: string) => {
    const r = await t.op('POST', `/api/v1/chat/${agent}/messages`, { text });
    assert.equal(r.status, 201, r.text);
    return until(
      `${agent}'s message to be settled`,
      async () => {
        const page = (await t.op('GET', `/api/v1/chat/${agent}/messages?limit=50`)).json.data;
        const m = page.messages.find((x: { id: string }) => x.id === r.json.data.id);
        return (
          m.state !== 'pending' && {
            state: m.state as string,
            notes: page.messages.filter((x: { kind: string }) => x.kind === 'system'),
          }
        );
      },
      10_000,
    );
  };
  const took = (agent: string) => (fs.existsSync(out(agent)) ? fs.readFileSync(out(agent), 'utf8') : '');

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    for (const name of ['quiet', 'silent', 'swallows', 'stuck'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: name, name })).status, 201);
    // The raw readers are up once they print their prompt.
    await sleep(1000);
  });
  after(async () => {
    await t.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a program whose screen does not move after Enter (cat > file) takes the message once: delivered, one Enter', async () => {
    const r = await send('quiet', 'hello, quiet one');
    assert.equal(r.state, 'delivered');
    await new Promise((res) => setTimeout(res, 1200));
    assert.equal(took('quiet'), '[Leo Chat] hello, quiet one\n', 'the line, and no extra Enter (an empty line)');
  });

  it('a program that does not echo gets one Enter and the message counts as delivered', async () => {
    const r = await send('silent', 'hello, silent one');
    assert.equal(r.state, 'delivered');
    await new Promise((res) => setTimeout(res, 1200));
    assert.equal(took('silent'), '[Leo Chat] hello, silent one\n');
  });

  it('an Enter the program swallowed, with the text still on its input line, is pressed again: once', async () => {
    const r = await send('swallows', 'hello, swallower');
    assert.equal(r.state, 'delivered');
    await new Promise((res) => setTimeout(res, 1200));
    assert.equal(took('swallows'), '(ignored Enter)\n[Leo Chat] hello, swallower\n');
  });

  it('text that stays on the input line after every Enter fails, saying it was not submitted', async () => {
    const r = await send('stuck', 'hello, stuck one');
    assert.equal(r.state, 'failed');
    assert.match(r.notes.at(-1).text, /still on the program's input line after 3 Enter presses: it was not submitted/);
    assert.equal(took('stuck'), '(ignored Enter)\n'.repeat(3));
  });
});
