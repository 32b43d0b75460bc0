// Whether Claude Code can log in here: an API key or token in the environment, or its own config and credentials.
import fs from 'node:fs';
import path from 'node:path';
import type { HarnessLogin } from '../adapter.js';

export const claudeLogin: HarnessLogin = {
  find(c) {
    const set = (name: string) => (c.env[name] ? `${name} is set` : null);
    const dir = c.env.CLAUDE_CONFIG_DIR;
    const files = dir
      ? [path.join(dir, '.claude.json'), path.join(dir, '.credentials.json')]
      : [path.join(c.home, '.claude.json'), path.join(c.home, '.claude', '.credentials.json')];
    return (
      set('ANTHROPIC_API_KEY') ??
      set('ANTHROPIC_AUTH_TOKEN') ??
      set('CLAUDE_CODE_OAUTH_TOKEN') ??
      files.filter((f) => fs.existsSync(f)).map((f) => `${f} exists`)[0] ??
      null
    );
  },
  how: 'run `claude` once and log in, or put ANTHROPIC_API_KEY in an environment the template lists',
};
