// Why a move or copy is refused with nothing changed (issue 32), pure: each refusal's status, code and words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LeoError } from '../../../src/core/leo-error.js';
import { startMove } from '../../../src/hosts/move/operation/move-machine.js';
import {
  moveRequest,
  refusalAtSource,
  refusalAtTarget,
  targetName,
  type MoveRequest,
  type SourceFacts,
  type TargetFacts,
} from '../../../src/hosts/move/refusals.js';
import { WorkspaceTooLargeError } from '../../../src/hosts/move/workspace/index.js';
import { CopyBody, MoveBody } from '../../../src/wire/move.js';

const move: MoveRequest = { kind: 'move', agent: 'den@box', to: 'cloud', force: false };
const record = {
  name: 'den',
  template: 'coder',
  environments: null,
  moved_to: null,
  moved_at: null,
  moved_as: null,
};
const source: SourceFacts = { record, busy: false, underWay: null };
const target: TargetFacts = {
  reachable: true,
  agents: [{ name: 'owl' }],
  templates: ['coder'],
  environments: ['work'],
};

const said = (e: LeoError | null) =>
  e && { status: e.statusCode, code: e.code, message: e.message, details: e.details };

describe('move refusals', () => {
  it('let a move through when nothing is in its way', () => {
    assert.equal(refusalAtSource(move, source), null);
    assert.equal(refusalAtTarget(move, source, target), null);
  });

  it('409 agent_busy while a turn runs, unless forced; a copy is not in the turn’s way', () => {
    const busy = { ...source, busy: true };
    assert.equal(said(refusalAtSource(move, busy))?.code, 'agent_busy');
    assert.equal(said(refusalAtSource(move, busy))?.status, 409);
    assert.equal(refusalAtSource({ ...move, force: true }, busy), null);
    assert.equal(refusalAtSource({ ...move, kind: 'copy' }, busy), null);
  });

  it('409 name_taken when the target has the name, unless `as` names a free one; a dormant record takes none', () => {
    const taken = { ...target, agents: [{ name: 'den' }] };
    const e = said(refusalAtTarget(move, source, taken));
    assert.deepEqual([e?.status, e?.code, e?.details], [409, 'name_taken', { host: 'cloud', name: 'den' }]);
    assert.match(e!.message, /another name there \(as\)/);
    assert.equal(refusalAtTarget({ ...move, as: 'den2' }, source, taken), null);
    assert.equal(targetName({ ...move, as: 'den2' }), 'den2');
    assert.equal(said(refusalAtTarget({ ...move, as: 'owl' }, source, target))?.details?.name, 'owl');
    const dormant = { ...target, agents: [{ name: 'den', moved_to: 'box' }] };
    assert.equal(refusalAtTarget(move, source, dormant), null, 'an agent coming back replaces its dormant record');
  });

  it('409 naming the template or the environments the target lacks', () => {
    const e = said(refusalAtTarget(move, source, { ...target, templates: [] }));
    assert.deepEqual([e?.status, e?.code, e?.details], [409, 'template_missing', { host: 'cloud', template: 'coder' }]);
    assert.match(e!.message, /cloud has no template "coder"/);
    const own = { ...source, record: { ...record, environments: ['work', 'gpu', 'keys'] } };
    const env = said(refusalAtTarget(move, own, target));
    assert.deepEqual([env?.code, env?.details?.environments], ['environment_missing', ['gpu', 'keys']]);
    assert.match(env!.message, /no environments "gpu", "keys"/);
    assert.equal(
      refusalAtTarget(move, { ...source, record: { ...record, template: null } }, { ...target, templates: [] }),
      null,
    );
  });

  it('503 host_unreachable naming the target', () => {
    const e = said(refusalAtTarget(move, source, { reachable: false, why: 'connect ECONNREFUSED' }));
    assert.deepEqual([e?.status, e?.code, e?.details], [503, 'host_unreachable', { host: 'cloud' }]);
    assert.match(e!.message, /cloud.*ECONNREFUSED/);
  });

  it('over the size limit: 409 workspace_too_large naming both sizes (the packer’s measure throws it)', () => {
    const e = new WorkspaceTooLargeError(3 * 1024 ** 3, 1024 ** 3);
    assert.deepEqual(
      [e.statusCode, e.code, e.details],
      [409, 'workspace_too_large', { bytes: 3 * 1024 ** 3, limit: 1024 ** 3 }],
    );
    assert.match(e.message, /3(\.0)? GiB/);
  });

  it('no such agent, one already moved, one being moved, or a move to where it runs', () => {
    assert.equal(refusalAtSource(move, { ...source, record: null })?.statusCode, 404);
    const moved = { ...record, moved_to: 'cloud', moved_at: '2026-12-05T10:00:00Z', moved_as: 'den2' };
    const e = said(refusalAtSource(move, { ...source, record: moved }));
    assert.deepEqual([e?.code, e?.details?.address], ['agent_moved', 'den2@cloud']);
    const underWay = startMove({
      id: '01M',
      kind: 'copy',
      agent: 'den@box',
      to: 'x',
      as: 'den',
      force: false,
      now: 'n',
    });
    assert.deepEqual(said(refusalAtSource(move, { ...source, underWay }))?.details, { id: '01M' });
    assert.equal(said(refusalAtSource({ ...move, to: 'box' }, source))?.code, 'same_host');
  });

  it('read the route bodies: a move’s force and as, a copy’s as; a copy has no force, a target is a host name', () => {
    assert.deepEqual(moveRequest('move', 'den@box', MoveBody.parse({ to: 'cloud', force: true })), {
      kind: 'move',
      agent: 'den@box',
      to: 'cloud',
      force: true,
    });
    assert.deepEqual(moveRequest('copy', 'den', CopyBody.parse({ to: 'cloud', as: 'den2' })), {
      kind: 'copy',
      agent: 'den',
      to: 'cloud',
      force: false,
      as: 'den2',
    });
    assert.equal(CopyBody.safeParse({ to: 'cloud', force: true }).success, false);
    assert.equal(MoveBody.safeParse({ to: 'Cloud!' }).success, false);
    assert.equal(MoveBody.safeParse({ to: 'cloud', as: 'a@b' }).success, false);
  });
});
