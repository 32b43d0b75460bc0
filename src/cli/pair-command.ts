import { spawn } from 'node:child_process';
import QRCode from 'qrcode';
import type { IssuedPairingCode } from '../auth/pairing-codes.js';
import { callDaemon } from './socket-client.js';

/** url: the link to open; daemonUrl: the same link at the daemon's own address (what a proxy forwards to). */
export type IssuedLink = IssuedPairingCode & { url: string; daemonUrl: string };

/**
 * Where a pairing link points: the daemon's own address; the same port under another host name (`host`); or another
 * origin altogether (`origin`: a proxy in front of the daemon, such as Tailscale Serve's https://<name>).
 */
export type LinkAddress = { host?: string; origin?: string };

/**
 * Asks the running daemon for a one-time pairing code; the daemon knows the port it really listens on. fleet: the
 * device may run the fleet (spawn, environments, start/stop…).
 */
export async function requestLink(name: string, at: LinkAddress = {}, fleet = false): Promise<IssuedLink> {
  const issued = await callDaemon<IssuedPairingCode & { url: string }>('POST', '/api/v1/devices/pairing-codes', {
    name,
    fleet,
  });
  // A phone cannot reach 127.0.0.1: the link may name a host the daemon also answers on (web.allowed_hosts).
  const url = new URL(issued.url);
  if (at.origin) {
    const origin = new URL(at.origin);
    url.protocol = origin.protocol;
    url.hostname = origin.hostname;
    // Setting the host alone would keep the daemon's port: the origin's own (none for 443) replaces it.
    url.port = origin.port;
  } else if (at.host) url.hostname = at.host;
  return { ...issued, url: url.toString(), daemonUrl: issued.url };
}

export async function printLink(issued: IssuedLink): Promise<void> {
  const may = issued.fleet ? 'it may run the fleet' : 'it may read and chat, not spawn or stop agents';
  console.log(`Open this link on "${issued.name}" to pair it (${may}; one use, until ${issued.expires_at}):`);
  console.log(`  ${issued.url}`);
  console.log(await QRCode.toString(issued.url, { type: 'terminal', small: true }));
}

/** `leo device pair <name> [--fleet]`: a link and its QR code that pair one browser as the device <name>. */
export async function runPairCommand(name: string, o: { host?: string; fleet: boolean }): Promise<void> {
  try {
    await printLink(await requestLink(name, o.host ? { host: o.host } : {}, o.fleet));
  } catch (err) {
    console.error(`leo: ${(err as Error).message}`);
    process.exit(1);
  }
}

/**
 * Prints a link (and its QR code) that pairs one new browser, named for when it was offered; returns the link. It is
 * the owner's own browser (the link is printed in the terminal that started the daemon, or `leo open` opens it on this
 * machine), so it may run the fleet.
 */
export async function offerBrowserPairing(): Promise<string> {
  const stamp = new Date().toISOString().slice(0, 19).replace('T', ' ').replaceAll(':', '.');
  const issued = await requestLink(`browser ${stamp}`, {}, true);
  await printLink(issued);
  return issued.url;
}

/** `leo open`: pairs this machine's browser in one click, by opening the same kind of link in it. */
export async function runOpenCommand(o: { browser: boolean }): Promise<void> {
  try {
    const url = await offerBrowserPairing();
    if (o.browser) openInBrowser(url);
  } catch (err) {
    console.error(`leo: ${(err as Error).message}`);
    process.exit(1);
  }
}

function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  // No opener (a server without a desktop) is fine: the link is printed above.
  child.on('error', () => {});
  child.unref();
}
