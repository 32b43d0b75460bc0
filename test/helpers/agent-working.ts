import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import type { TestDaemon } from './daemon.js';

/**
 * Waits until `agent` (one that keeps printing) reads as in a turn (`working`). The test daemon's clock is held
 * still: sweep-sized steps, with real time between them for tmux's activity to move.
 */
export async function untilWorking(t: TestDaemon, agent: string): Promise<void> {
  const activity = async () =>
    (await t.get('/api/v1/state', StateSnapshot)).agents.find((a) => a.name === agent)?.activity;
  for (let i = 0; i < 30 && (await activity()) !== 'working'; i++) {
    (t.clock as ManualClock).advance(2000);
    await sleep(700);
  }
  assert.equal(await activity(), 'working');
}
