// Issue 20 item 7, the failure a test daemon cannot reach in reasonable time: an agent that never shows its input box
// within INPUT_READY_TIMEOUT_MS (five minutes). The real wait, shortened, through the Deliverer to the route's answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliveryHttpError } from '../../src/agents/message-routes.js';
import { Deliverer, DeliveryError } from '../../src/delivery/deliverer.js';
import { waitForInput } from '../../src/delivery/input-wait.js';
import { HttpError } from '../../src/http/envelope.js';

describe('a delivery that waits out the input box', () => {
  it('is a 504 delivery_timeout on the message routes', async () => {
    const deliverer = new Deliverer([
      {
        name: 'tmux',
        available: () => true,
        deliver: async () => {
          await waitForInput(async () => ({ kind: 'dialog', question: 'Trust this folder?', options: [] }), {
            agent: 'bob',
            timeoutMs: 300,
            note: () => {},
            press: async () => {},
            openPrompt: () => null,
            held: () => {},
          });
        },
      },
    ]);
    const err = await deliverer.deliver('bob', 'hello').then(
      () => assert.fail('delivered'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DeliveryError);
    assert.equal(err.failure, 'timeout');
    const http = deliveryHttpError('bob', err);
    assert.ok(http instanceof HttpError);
    assert.deepEqual([http.status, http.code], [504, 'delivery_timeout']);
    assert.match(
      http.message,
      /bob was not ready for input within 0 s \(its terminal is asking “Trust this folder\?”\)/,
    );
  });
});
