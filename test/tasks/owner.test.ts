import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigSchema } from '../../src/config/schema.js';
import { PERSISTENT_AGENT_FOR, resolveOwner, taskOwner } from '../../src/tasks/owner.js';

const agents = [
  { name: 'zed', workspace: '/w/news' },
  { name: 'assistant', workspace: '/w/home' },
  { name: 'den', workspace: '/w/news/' },
  { name: 'daily-news', workspace: '/w/other' },
  { name: 'blank', workspace: '' },
];

describe('resolveOwner', () => {
  it('a configured owner that is an agent wins over everything else', () => {
    assert.deepEqual(
      resolveOwner({ task: 'daily-news', owner: 'zed', runtime: 'persistent', workspace: '/w/home' }, agents),
      { agent: 'zed' },
    );
  });

  it('a configured owner that names no agent posts to assistant with a note naming it', () => {
    assert.deepEqual(
      resolveOwner({ task: 'daily-news', owner: 'ghost', runtime: 'oneshot', workspace: '/w/news' }, agents),
      {
        agent: 'assistant',
        note: 'task daily-news: owner "ghost" is not an agent; posting here',
      },
    );
  });

  it('a persistent task without an owner goes to its own agent', () => {
    assert.equal(PERSISTENT_AGENT_FOR('daily-news'), 'daily-news');
    assert.deepEqual(resolveOwner({ task: 'daily-news', runtime: 'persistent', workspace: '/w/news' }, agents), {
      agent: 'daily-news',
    });
  });

  it('a oneshot task never goes to the agent that shares its name', () => {
    assert.deepEqual(resolveOwner({ task: 'daily-news', runtime: 'oneshot', workspace: '/w/home' }, agents), {
      agent: 'assistant',
    });
  });

  it('otherwise the agent working in the task’s workspace, compared resolved, first by name', () => {
    assert.deepEqual(resolveOwner({ task: 'digest', runtime: 'oneshot', workspace: '/w/x/../news' }, agents), {
      agent: 'den',
    });
    assert.deepEqual(
      resolveOwner({ task: 'other-job', runtime: 'persistent', workspace: '/w/news' }, agents),
      {
        agent: 'den',
      },
      'a persistent task whose own agent is absent falls through to the workspace rule',
    );
  });

  it('otherwise assistant, without a note; an empty workspace matches nobody', () => {
    assert.deepEqual(resolveOwner({ task: 'digest', runtime: 'oneshot', workspace: '/w/none' }, agents), {
      agent: 'assistant',
    });
    assert.deepEqual(resolveOwner({ task: 'digest', runtime: 'oneshot' }, agents), { agent: 'assistant' });
    assert.deepEqual(resolveOwner({ task: 'digest', runtime: 'oneshot', workspace: '' }, agents), {
      agent: 'assistant',
    });
    assert.deepEqual(
      resolveOwner({ task: 'digest', runtime: 'oneshot', workspace: process.cwd() }, agents),
      {
        agent: 'assistant',
      },
      'an agent with no workspace is not taken to be in the daemon’s cwd',
    );
  });
});

describe('taskOwner', () => {
  const config = ConfigSchema.parse({
    defaults: { workspace_root: '/w/root' },
    templates: { newsroom: { harness: 'shell', command: 'true', workspace: '/w/news' } },
    tasks: {
      'by-template': { schedule: '0 6 * * *', template: 'newsroom', prompt: 'p' },
      'by-default': { schedule: '0 6 * * *', harness: 'shell', command: 'true', prompt: 'p' },
      own: { schedule: '0 6 * * *', template: 'newsroom', workspace: '/w/home', prompt: 'p' },
    },
  });
  const fleet = [...agents, { name: 'by-default', workspace: '/w/root/by-default' }];

  it("compares the task's resolved workspace: its own, else its template's, else <workspace_root>/<task>", () => {
    assert.deepEqual(taskOwner(config, 'by-template', fleet, '/leo'), { agent: 'den' });
    assert.deepEqual(taskOwner(config, 'by-default', fleet, '/leo'), { agent: 'by-default' });
    assert.deepEqual(taskOwner(config, 'own', fleet, '/leo'), { agent: 'assistant' });
    assert.deepEqual(taskOwner(config, 'by-default', agents, '/leo'), { agent: 'assistant' });
  });
});
