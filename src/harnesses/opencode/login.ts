// Whether opencode can log in here: its config (which names providers) or its auth file.
import fs from 'node:fs';
import path from 'node:path';
import type { HarnessLogin } from '../adapter.js';

export const opencodeLogin: HarnessLogin = {
  find(c) {
    const configDir = path.join(c.env.XDG_CONFIG_HOME || path.join(c.home, '.config'), 'opencode');
    const dataDir = path.join(c.env.XDG_DATA_HOME || path.join(c.home, '.local', 'share'), 'opencode');
    const files = [
      path.join(configDir, 'opencode.json'),
      path.join(configDir, 'opencode.jsonc'),
      path.join(dataDir, 'auth.json'),
    ];
    return files.filter((f) => fs.existsSync(f)).map((f) => `${f} exists`)[0] ?? null;
  },
  how: 'run `opencode auth login`, or write ~/.config/opencode/opencode.json with a provider',
};
