// Keeps the live config: initial load, reload on file change (or when the daemon calls
// reload("SIGHUP")), and last-good semantics when a reload fails.
import { EventEmitter } from 'node:events';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, type ParseResult } from './load.js';
import type { ChatEngineFor, Config } from './schema.js';

/** The subset of a pino logger the watcher uses. */
export interface ConfigLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface ConfigWatcherOptions {
  /** Path of leo.yaml ($LEO_HOME/leo.yaml). */
  path: string;
  /** Home directory for `~` expansion. */
  home: string;
  /** The harness table's chat engine lookup, for the templates' chat checks. */
  chatEngineFor: ChatEngineFor;
  logger: ConfigLogger;
  /** Quiet period after the last file event before reloading. Default 100 ms. */
  debounceMs?: number;
}

export interface ConfigWatcherEvents {
  /** A reload succeeded; `current` is already `next`. Emitted on every successful reload, even if nothing changed. */
  change: [next: Config, prev: Config];
  /** A reload failed; `current` is unchanged. Each error was also logged with logger.error. */
  reload_failed: [errors: string[], reason: string];
}

export type ReloadResult = ParseResult;

/** What a domain follows of the watcher: each reload, failed or not. */
export type ConfigChanges = Pick<ConfigWatcher, 'on'>;

export class ConfigWatcher extends EventEmitter<ConfigWatcherEvents> {
  readonly path: string;
  private readonly home: string;
  private readonly chatEngineFor: ChatEngineFor;
  private readonly logger: ConfigLogger;
  private readonly debounceMs: number;
  private config: Config | undefined;
  private fsWatcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(opts: ConfigWatcherOptions) {
    super();
    this.path = path.resolve(opts.path);
    this.home = opts.home;
    this.chatEngineFor = opts.chatEngineFor;
    this.logger = opts.logger;
    this.debounceMs = opts.debounceMs ?? 100;
  }

  /** The last successfully loaded config. Throws before start(). */
  get current(): Config {
    if (this.config === undefined) throw new Error('ConfigWatcher: current read before start()');
    return this.config;
  }

  /**
   * Loads the config and starts watching the file. Throws an Error listing every error when the
   * config is invalid (the daemon refuses to start). A missing file yields the defaults.
   */
  async start(): Promise<Config> {
    if (this.config !== undefined) return this.config;
    this.stopped = false;
    const res = await loadConfigFile(this.path, this.home, this.chatEngineFor);
    if (!res.ok) {
      throw new Error(`invalid config ${this.path}:\n${res.errors.map((e) => `  ${e}`).join('\n')}`);
    }
    this.logWarnings(res.warnings);
    this.config = res.config;
    this.logger.info({ file: this.path, exists: res.text !== undefined }, 'config loaded');
    this.startWatching();
    return res.config;
  }

  /**
   * Re-reads the file. On success replaces `current` and emits `change`; on failure logs each
   * error, keeps the last good config and emits `reload_failed`. Reloads are serialized.
   */
  reload(reason: string): Promise<ReloadResult> {
    const run = this.queue.then(() => this.doReload(reason));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops watching. Safe to call more than once. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.fsWatcher?.close();
    this.fsWatcher = undefined;
  }

  private async doReload(reason: string): Promise<ReloadResult> {
    const res = await loadConfigFile(this.path, this.home, this.chatEngineFor);
    if (!res.ok) {
      for (const e of res.errors) this.logger.error({ file: this.path, reason }, e);
      this.logger.error(
        { file: this.path, reason, errors: res.errors.length },
        'config reload failed; keeping the last good config',
      );
      this.emit('reload_failed', res.errors, reason);
      return { ok: false, errors: res.errors, warnings: res.warnings };
    }
    this.logWarnings(res.warnings);
    const prev = this.config;
    this.config = res.config;
    this.logger.info({ file: this.path, reason, exists: res.text !== undefined }, 'config reloaded');
    // Before start() there is no previous config to compare against: nothing to announce.
    if (prev !== undefined) this.emit('change', res.config, prev);
    return { ok: true, config: res.config, warnings: res.warnings };
  }

  private logWarnings(warnings: string[]): void {
    for (const w of warnings) this.logger.warn({ file: this.path }, w);
  }

  private startWatching(): void {
    if (this.fsWatcher !== undefined || this.stopped) return;
    const dir = path.dirname(this.path);
    const base = path.basename(this.path);
    try {
      // Watch the directory, not the file: editors save by writing a temp file and renaming it
      // over the original, which a file watch would lose, and the file may not exist yet.
      this.fsWatcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename !== null && filename !== base) return;
        this.schedule();
      });
      this.fsWatcher.on('error', (err) => {
        this.logger.error({ file: this.path, err }, 'config watcher failed; reload with SIGHUP');
        this.fsWatcher?.close();
        this.fsWatcher = undefined;
      });
    } catch (err) {
      this.logger.warn({ file: this.path, err }, 'cannot watch the config directory; reload with SIGHUP');
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.reload('file changed').catch((err: unknown) => {
        // Only a throwing `change` listener gets here; keep it from becoming an unhandled rejection.
        this.logger.error({ file: this.path, err }, 'config change listener failed');
      });
    }, this.debounceMs);
    this.timer.unref();
  }
}
