import http from 'node:http';
import { takeFrames } from './sse-client.js';

export interface SseAnswer {
  status: number;
  contentType: string;
  /** Each event with the time it arrived; `data` is its data line parsed, undefined when it has none. */
  events: { event: string; data: any; at: number }[];
  /** The parsed body of a JSON answer (a non-streamed reply or an error). */
  json?: any;
}

/**
 * POSTs `body` as JSON and reads the answer off the wire, the SSE framing included, the way a model client reads a
 * streamed reply; the scripted model servers' own tests check their streams with it.
 */
export function postSse(url: string, body: unknown): Promise<SseAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('response', (res) => {
      const out: SseAnswer = {
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type']),
        events: [],
      };
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const { frames, rest } = takeFrames(buf + chunk);
        buf = rest;
        for (const { event = '', data } of frames)
          out.events.push({ event, data: data === undefined ? undefined : JSON.parse(data), at: Date.now() });
      });
      res.on('end', () => {
        if (out.contentType.startsWith('application/json')) out.json = JSON.parse(buf);
        resolve(out);
      });
      // A connection cut mid-stream ends without 'end'.
      res.on('close', () => resolve(out));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
