import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { ManualClock } from '../../src/core/clock.js';
import { TaskScheduler } from '../../src/tasks/scheduler.js';

const HOUR = 3600_000;
const tasks = (t: Record<string, unknown>): Config['tasks'] => ConfigSchema.parse({ tasks: t }).tasks;
const task = (schedule: string, extra: Record<string, unknown> = {}) => ({
  schedule,
  timezone: 'UTC',
  prompt: 'p',
  ...extra,
});

describe('TaskScheduler (clock seam)', () => {
  it('fires each enabled task at its cron times, once per time, and never a disabled one', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 30));
    const fired: [string, string][] = [];
    const s = new TaskScheduler({
      clock,
      tasks: () => tasks({ hourly: task('0 * * * *'), off: task('* * * * *', { enabled: false }) }),
      fire: (name, at) => fired.push([name, new Date(at).toISOString()]),
    });
    s.reschedule();
    clock.advance(3 * HOUR);
    assert.deepEqual(fired, [
      ['hourly', '2026-01-01T01:00:00.000Z'],
      ['hourly', '2026-01-01T02:00:00.000Z'],
      ['hourly', '2026-01-01T03:00:00.000Z'],
    ]);
    s.close();
    clock.advance(3 * HOUR);
    assert.equal(fired.length, 3, 'nothing after close');
  });

  it('a reload reschedules from the new config; a far firing waits through capped timers', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    let current = tasks({ a: task('0 12 * * *') });
    const fired: string[] = [];
    const s = new TaskScheduler({ clock, tasks: () => current, fire: (name) => fired.push(name) });
    s.reschedule();
    current = tasks({ b: task('0 6 1 2 *') });
    s.reschedule();
    clock.advance(31 * 24 * HOUR + 6 * HOUR);
    assert.deepEqual(fired, ['b'], 'a was dropped; b fired on 1 February, a month of timers later');
  });

  it('a task removed or disabled before its time does not fire', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    let current = tasks({ a: task('0 1 * * *') });
    const fired: string[] = [];
    const s = new TaskScheduler({ clock, tasks: () => current, fire: (name) => fired.push(name) });
    s.reschedule();
    current = tasks({ a: task('0 1 * * *', { enabled: false }) });
    clock.advance(2 * HOUR);
    assert.deepEqual(fired, []);
  });
});
