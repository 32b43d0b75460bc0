// Preloaded into a child process (`node --import`): fetch's own timeouts — 5 minutes for the headers, 5 minutes
// between body chunks, by default — cut to 2 s, so a test shows in seconds whether a client still depends on them.
type Dispatcher = { constructor: new (o: { headersTimeout: number; bodyTimeout: number }) => Dispatcher };
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const slots = globalThis as unknown as Record<symbol, Dispatcher>;
// fetch makes its dispatcher on first use; its class is not exported, so the new one is made from the old one's.
await fetch('http://127.0.0.1:1').catch(() => undefined);
slots[DISPATCHER] = new slots[DISPATCHER]!.constructor({ headersTimeout: 2000, bodyTimeout: 2000 });
export {};
