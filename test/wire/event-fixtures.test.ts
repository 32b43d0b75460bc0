import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPES, eventFixture } from './event-fixtures.js';

describe('event fixtures', () => {
  it('one per event type, each accepted by the event table', () => {
    for (const type of EVENT_TYPES) assert.equal(typeof eventFixture(type).seq, 'number', type);
  });
});
