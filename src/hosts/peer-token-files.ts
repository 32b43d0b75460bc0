import fs from 'node:fs';
import path from 'node:path';
import { readTokenFile } from '../auth/token-file.js';

/**
 * The peer tokens a hub holds, one file per host, `<state>/hosts/<name>.token`: mode 0600 in a 0700 folder, like the
 * operator's own token. Files rather than chat.db so a token is never in a backup of the database or a row a query
 * could serve.
 */
export class PeerTokenFiles {
  constructor(private readonly dir: string) {}

  read(name: string): string | null {
    return readTokenFile(this.file(name));
  }

  /** Written under a temp name and renamed into place, so a crash leaves the old file or the new one. */
  write(name: string, token: string): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
    const tmp = `${this.file(name)}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
    fs.renameSync(tmp, this.file(name));
  }

  remove(name: string): void {
    fs.rmSync(this.file(name), { force: true });
  }

  private file(name: string): string {
    return path.join(this.dir, `${name}.token`);
  }
}
