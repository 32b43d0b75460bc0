import fs from 'node:fs';
import tls from 'node:tls';

export interface TlsPaths {
  cert: string;
  key: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/**
 * Reads a certificate chain and its key, and proves they make a working pair (both parse, the key is the
 * certificate's) before anything serves them. Throws with the file and the reason; never puts key bytes in the message.
 */
export function readTlsPair(paths: TlsPaths): TlsPair {
  const read = (file: string, what: string): Buffer => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(`web.tls.${what} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
  };
  const pair = { cert: read(paths.cert, 'cert'), key: read(paths.key, 'key') };
  try {
    tls.createSecureContext(pair);
  } catch (err) {
    throw new Error(
      `web.tls.cert ${paths.cert} and web.tls.key ${paths.key} are no usable pair: ${(err as Error).message}`,
    );
  }
  return pair;
}

export interface TlsReloaderOptions {
  /** Read at each check: a config reload may point at other files. */
  paths(): TlsPaths | undefined;
  logger: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How often the files' stat is looked at (fs.watchFile, which also sees a file replaced by a rename or symlink). */
  intervalMs?: number;
}

/**
 * Keeps the TCP listener's certificate current: the files are watched, and checked again on a config reload; a pair
 * that changed is read and served to new connections; a bad one is logged and the one in service kept.
 */
export class TlsReloader {
  private watched: string[] = [];
  private served: TlsPair | null = null;
  private readonly listeners: ((pair: TlsPair) => void)[] = [];

  constructor(private readonly o: TlsReloaderOptions) {}

  /** Told of each changed pair that read well, to serve it (the https server's setSecureContext). */
  onReload(listener: (pair: TlsPair) => void): void {
    this.listeners.push(listener);
  }

  /** The pair to listen with; throws when it is unusable (at start there is no older one to keep). */
  start(): TlsPair {
    const paths = this.o.paths();
    if (!paths) throw new Error('web.tls is not set');
    const pair = readTlsPair(paths);
    this.served = pair;
    this.watch(paths);
    return pair;
  }

  /** The pair served to new connections now. */
  get current(): TlsPair | null {
    return this.served;
  }

  /** Re-reads the files; serves them when they changed and make a good pair. */
  check(): void {
    const paths = this.o.paths();
    if (!paths) return;
    this.watch(paths);
    let pair: TlsPair;
    try {
      pair = readTlsPair(paths);
    } catch (err) {
      this.o.logger.error(
        { err: (err as Error).message },
        'web.tls: the new certificate was not loaded; the old one is still served',
      );
      return;
    }
    if (this.served && pair.cert.equals(this.served.cert) && pair.key.equals(this.served.key)) return;
    for (const l of this.listeners) l(pair);
    this.served = pair;
    this.o.logger.info({ cert: paths.cert }, 'web.tls: certificate reloaded');
  }

  stop(): void {
    for (const f of this.watched) fs.unwatchFile(f, this.onChange);
    this.watched = [];
  }

  private readonly onChange = (): void => this.check();

  private watch(paths: TlsPaths): void {
    const files = [paths.cert, paths.key];
    if (files.join('\0') === this.watched.join('\0')) return;
    this.stop();
    for (const f of files) fs.watchFile(f, { interval: this.o.intervalMs ?? 2000, persistent: false }, this.onChange);
    this.watched = files;
  }
}
