// The agent's own needs_input alert (issue 29 item 7): its rules apart from delivery and tmux. One alert per hold
// (the same hold seen again raises nothing new, so it pushes once), dropped while a card open in the thread asks
// for the same question, cleared when the hold goes, each change published for the fleet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { rfc3339 } from '../../src/core/time.js';
import { EventBus } from '../../src/events/bus.js';
import { NeedsInputAlerts } from '../../src/observe/needs-input.js';
import { shouldDropNeedsInput } from '../../src/push/push-payload.js';
import type { Message } from '../../src/wire/message.js';
import { message } from '../push/helpers.js';

const START = Date.parse('2026-12-04T21:00:00Z');

function rig() {
  const clock = new ManualClock(START);
  const bus = new EventBus(clock);
  const published: { needs_input: unknown }[] = [];
  bus.subscribe({
    deliver: (e) => void (e.type === 'agent_needs_input' && published.push(e.data as { needs_input: unknown })),
  });
  let open: Message[] = [];
  const alerts = new NeedsInputAlerts({
    bus,
    clock,
    superseded: (agent) => shouldDropNeedsInput(agent, open),
  });
  return { clock, alerts, published, setOpen: (m: Message[]) => void (open = m) };
}

const dialog = { reason: 'dialog' as const, text: 'Its terminal is asking “Do you want to use this API key?”.' };
const card = message({ kind: 'permission', state: 'open', permission: { tool: 'Bash', summary: 'touch x' } });

describe('needs_input alerts', () => {
  it('raised once per hold, stamped when raised, published; cleared when the hold goes', () => {
    const r = rig();
    r.alerts.raise('den', dialog);
    r.clock.advance(5_000);
    r.alerts.raise('den', dialog);
    assert.deepEqual(r.alerts.of('den'), { ...dialog, at: rfc3339(START) });
    assert.equal(r.published.length, 1, 'the same hold seen again is the same alert (one push)');
    assert.deepEqual(r.published[0], {
      seq: 1,
      at: rfc3339(START),
      agent: 'den',
      needs_input: r.alerts.of('den'),
    });

    const busy = { reason: 'unsent_text' as const, text: 'Its input box holds text nobody sent.' };
    r.alerts.raise('den', busy);
    assert.equal(r.alerts.of('den')?.reason, 'unsent_text');
    assert.equal(r.published.length, 2, 'a different hold is a new alert');

    r.alerts.clear('den');
    r.alerts.clear('den');
    assert.equal(r.alerts.of('den'), null);
    assert.deepEqual(
      r.published.map((p) => p.needs_input === null),
      [false, false, true],
      'cleared once, published once',
    );
  });

  it('a card open in the thread for the question (permission prompt, questions card) drops the alert', () => {
    const r = rig();
    r.setOpen([card]);
    r.alerts.raise('den', dialog);
    assert.equal(r.alerts.of('den'), null);
    assert.equal(r.published.length, 0, 'no separate alert, so no push');

    // Another agent's card, or a card already answered, asks nothing for this one.
    r.setOpen([
      { ...card, agent: 'ops' },
      { ...card, state: 'answered' },
    ]);
    r.alerts.raise('den', dialog);
    assert.equal(r.alerts.of('den')?.reason, 'dialog');

    // A card that opens while the alert is up takes over: the next look clears it.
    r.setOpen([message({ kind: 'ask', state: 'open', input: { type: 'questions', questions: [] } })]);
    r.alerts.raise('den', dialog);
    assert.equal(r.alerts.of('den'), null);
    assert.equal(r.published.at(-1)?.needs_input, null);
  });

  it('follows a rename, and an agent gone takes its alert along', () => {
    const r = rig();
    r.alerts.raise('den', dialog);
    r.alerts.renamed('den', 'lair');
    assert.equal(r.alerts.of('den'), null);
    assert.equal(r.alerts.of('lair')?.text, dialog.text);
    r.alerts.clear('lair');
    assert.equal(r.alerts.of('lair'), null);
  });
});
