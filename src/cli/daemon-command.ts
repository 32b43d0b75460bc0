import { startDaemon } from '../daemon/daemon.js';

/** `leo daemon`: runs until SIGTERM/SIGINT, then shuts down gracefully; a second signal forces the exit. */
export async function runDaemonCommand(): Promise<void> {
  let daemon;
  try {
    daemon = await startDaemon();
  } catch (err) {
    console.error(`leo daemon: ${(err as Error).message}`);
    process.exit(1);
  }
  // For the person who just ran `npm start` in a terminal: where the app is and how to pair a browser (no code or
  // token). Without a terminal the log stays pino's JSON lines only: the ready line carries the same `app` URL.
  if (process.stderr.isTTY)
    console.error(
      `Leo Web: ${daemon.appUrl} (pair this browser: \`npx leo open\`; a phone: \`npx leo device pair <name>\`)`,
    );
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
