import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { TerminalScreen } from '../../src/wire/terminal.js';
import { TerminalWatch, type ScreenListener } from '../../src/terminal/terminal-watch.js';

class Gone extends Error {}

/** A pane whose text the test sets, counting the captures made of it. */
function fakePane() {
  const pane = { text: 'one', captures: 0, gone: false, slow: null as null | Promise<void> };
  const capture = async (agent: string): Promise<TerminalScreen> => {
    pane.captures++;
    if (pane.slow) await pane.slow;
    if (pane.gone) throw new Gone();
    return {
      agent,
      cols: 80,
      rows: 24,
      cursor: { x: 0, y: 0 },
      ansi: pane.text,
      captured_at: 'now',
      interrupt: 'Escape',
    };
  };
  return { pane, capture };
}

const flush = () => new Promise((r) => setImmediate(r));

function collect() {
  const seen: string[] = [];
  const listener: ScreenListener = (e) => seen.push(e.kind === 'screen' ? e.screen.ansi : `ended: ${e.reason}`);
  return { seen, listener };
}

describe('TerminalWatch', () => {
  it('captures nothing while nobody watches, once per interval however many watch, and hands on only changes', async () => {
    const clock = new ManualClock(0);
    const { pane, capture } = fakePane();
    const watch = new TerminalWatch({ capture, isGone: (e) => e instanceof Gone, clock, intervalMs: 100 });
    clock.advance(1000);
    assert.equal(pane.captures, 0);

    const a = collect();
    const stopA = watch.watch('den', a.listener);
    await flush();
    assert.deepEqual(a.seen, ['one'], 'the first watcher gets the screen at once');
    const b = collect();
    const stopB = watch.watch('den', b.listener);
    assert.deepEqual(b.seen, ['one'], 'a later watcher gets the last screen at once, without a capture');
    assert.equal(pane.captures, 1);

    clock.advance(100);
    await flush();
    assert.equal(pane.captures, 2, 'one capture for both watchers');
    assert.deepEqual(a.seen, ['one'], 'an unchanged screen is not sent again');
    pane.text = 'two';
    clock.advance(100);
    await flush();
    assert.deepEqual(a.seen, ['one', 'two']);
    assert.deepEqual(b.seen, ['one', 'two']);

    stopA();
    stopB();
    assert.equal(watch.watching(), 0);
    const before = pane.captures;
    clock.advance(1000);
    await flush();
    assert.equal(pane.captures, before, 'no captures once the last watcher left');
  });

  it('does not stack captures behind a slow one', async () => {
    const clock = new ManualClock(0);
    const { pane, capture } = fakePane();
    const watch = new TerminalWatch({ capture, isGone: () => false, clock, intervalMs: 100 });
    let release!: () => void;
    pane.slow = new Promise((r) => (release = r));
    const stop = watch.watch('den', collect().listener);
    for (let i = 0; i < 5; i++) clock.advance(100);
    await flush();
    assert.equal(pane.captures, 1);
    pane.slow = null;
    release();
    await flush();
    clock.advance(100);
    await flush();
    assert.equal(pane.captures, 2);
    stop();
  });

  it('ends every watcher when the terminal is gone, and starts afresh for the next', async () => {
    const clock = new ManualClock(0);
    const { pane, capture } = fakePane();
    const watch = new TerminalWatch({ capture, isGone: (e) => e instanceof Gone, clock, intervalMs: 100 });
    const a = collect();
    watch.watch('den', a.listener);
    await flush();
    pane.gone = true;
    clock.advance(100);
    await flush();
    assert.deepEqual(a.seen, ['one', 'ended: den is not running']);
    assert.equal(watch.watching(), 0);

    pane.gone = false;
    pane.text = 'back';
    const b = collect();
    const stop = watch.watch('den', b.listener);
    await flush();
    assert.deepEqual(b.seen, ['back']);
    stop();
  });

  it('a passing capture error is retried at the next interval, not the end', async () => {
    const clock = new ManualClock(0);
    let fail = true;
    const watch = new TerminalWatch({
      capture: async (agent) => {
        if (fail) throw new Error('tmux busy');
        return { agent, cols: 1, rows: 1, cursor: { x: 0, y: 0 }, ansi: 'ok', captured_at: 'now', interrupt: 'Escape' };
      },
      isGone: (e) => e instanceof Gone,
      clock,
      intervalMs: 100,
    });
    const a = collect();
    const stop = watch.watch('den', a.listener);
    await flush();
    assert.deepEqual(a.seen, []);
    fail = false;
    clock.advance(100);
    await flush();
    assert.deepEqual(a.seen, ['ok']);
    stop();
  });
});
