// The daemon's log as its reader meets it: a person running `leo daemon` in a terminal reads pino-pretty's lines; the
// journal, a log file or a pipe gets pino's JSON lines. Request lines stay at debug either way.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LEO_BIN, spawnDaemon, waitForExit } from '../helpers/cli.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const CONFIG = 'web:\n  listen: 127.0.0.1:0\nlog:\n  level: info\npool:\n  threads: 1\n';
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

async function health(port: number): Promise<void> {
  assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
}

describe('daemon log lines', () => {
  it('in a terminal: pretty, coloured lines with the time, level and message, no JSON, no request lines', async () => {
    const home = makeTempHome(CONFIG);
    const child = spawn('script', ['-qfec', `${sh(process.execPath)} ${sh(LEO_BIN)} daemon`, '/dev/null'], {
      env: home.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const ready = await until('the ready line', () => /^.*leo daemon ready.*$/m.exec(plain(out))?.[0], 30_000);
      assert.match(ready, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: leo daemon ready$/);
      assert.match(out, /\x1b\[3\dm/, 'coloured');
      const port = Number(/listen: "127\.0\.0\.1:(\d+)"/.exec(plain(out))?.[1]);
      assert.ok(port > 0, plain(out));
      await health(port);
      await sleep(500);
      assert.doesNotMatch(plain(out), /"level":\d+/, 'no JSON lines');
      assert.doesNotMatch(plain(out), /request completed|incoming request/, 'request lines stay at debug');
    } finally {
      // Ctrl-C in the terminal, as its owner stops it: a SIGTERM to `script` would end the terminal under the daemon,
      // which takes the hangup for a reload and runs on.
      child.stdin.write('\x03');
      await waitForExit(child).catch(() => child.kill('SIGKILL'));
      home.cleanup();
    }
  });

  it('into a pipe: one JSON object a line; at log.level debug the request lines appear', async () => {
    const home = makeTempHome(CONFIG.replace('level: info', 'level: debug'));
    const d = await spawnDaemon(home.env);
    try {
      await health(d.port);
      await until('a request line', () => /request completed/.test(d.output()), 10_000);
      const lines = d.output().trim().split('\n');
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
      const ready = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'leo daemon ready');
      assert.equal(ready.level, 30);
      assert.match(ready.listen, /^127\.0\.0\.1:\d+$/);
      assert.ok(lines.some((l) => JSON.parse(l).level === 20 && /request completed/.test(l)));
    } finally {
      d.child.kill('SIGTERM');
      await waitForExit(d.child).catch(() => d.child.kill('SIGKILL'));
      home.cleanup();
    }
  });
});
