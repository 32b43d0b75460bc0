import { startDaemon } from '../daemon/daemon.js';
import { resolvePaths } from '../core/home.js';
import { firstRunSetup } from './first-run-setup.js';
import { offerBrowserPairing } from './pair-command.js';

/** `leo daemon`: runs until SIGTERM/SIGINT, then shuts down gracefully; a second signal forces the exit. */
export async function runDaemonCommand(): Promise<void> {
  let daemon;
  try {
    await firstRunSetup({ stateDir: resolvePaths().stateDir, log: (line) => console.error(line) });
    daemon = await startDaemon();
  } catch (err) {
    console.error(`leo daemon: ${(err as Error).message}`);
    process.exit(1);
  }
  // For the person who just ran `npm start` in a terminal: where the app is, and a one-time link (with its QR code)
  // that pairs the first browser to open it — so opening the printed link is the whole set-up. Without a terminal
  // (a service, a test harness) no code is issued and the log stays pino's JSON lines: the ready line has the URL.
  if (process.stderr.isTTY) {
    console.error(`Leo Web: ${daemon.appUrl} — more devices: \`npx leo device pair <name> [--fleet]\``);
    void offerBrowserPairing().catch((err: Error) =>
      console.error(`Leo Web: no pairing link (${err.message}); run \`npx leo open\``),
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    daemon
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error(`leo daemon: shutdown after ${signal} failed: ${(err as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => void daemon.reloadConfig('SIGHUP'));
}
