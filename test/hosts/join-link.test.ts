// A host's join link (issue 31): where the hub reaches the host, and the one-time code in the fragment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinLink, parseJoinLink } from '../../src/hosts/join-link.js';

const CODE = 'Zk3_qP0-abcdefghijkLMN';
const PIN = `sha256:${'0123456789abcdef'.repeat(4)}`;

describe('join links', () => {
  it('round-trips the host URL and the code, with or without a path or a trailing slash', () => {
    for (const url of ['https://box.example.ts.net', 'http://127.0.0.1:8484', 'https://proxy.lan/leo'])
      for (const given of [url, `${url}/`]) assert.deepEqual(parseJoinLink(joinLink(given, CODE)), { url, code: CODE });
    assert.equal(joinLink('https://box.example.ts.net/', CODE), `https://box.example.ts.net/#join=${CODE}`);
  });

  it('carries the pin of a host’s own TLS certificate after the code', () => {
    const link = joinLink('https://10.0.0.5:8370/', CODE, PIN);
    assert.equal(link, `https://10.0.0.5:8370/#join=${CODE}&pin=${PIN}`);
    assert.deepEqual(parseJoinLink(link), { url: 'https://10.0.0.5:8370', code: CODE, pin: PIN });
  });

  it('tolerates white space around a pasted link', () => {
    assert.deepEqual(parseJoinLink(`  https://box/#join=${CODE}\n`), { url: 'https://box', code: CODE });
  });

  it('refuses what is not a join link, saying why', () => {
    const refused: [string, RegExp][] = [
      ['box.example.ts.net', /not a URL/],
      [`ftp://box/#join=${CODE}`, /only http and https/],
      [`file:///tmp/#join=${CODE}`, /only http and https/],
      [`https://me:pw@box/#join=${CODE}`, /no user name, password or query/],
      [`https://box/?code=1#join=${CODE}`, /no user name, password or query/],
      ['https://box/', /no join code/],
      [`https://box/#pair=${CODE}`, /no join code/],
      ['https://box/#join=short', /no join code/],
      [`https://box/#join=${CODE}&x=1`, /no join code/],
      [`https://box/#join=${CODE}&pin=`, /pin is not sha256: and 64/],
      [`https://box/#join=${CODE}&pin=${PIN.slice(0, -1)}`, /pin is not sha256: and 64/],
      [`https://box/#join=${CODE}&pin=${PIN.toUpperCase()}`, /pin is not sha256: and 64/],
      [`https://box/#join=${CODE}&pin=${PIN.replace('sha256', 'sha1')}`, /pin is not sha256: and 64/],
      [`https://box/#join=${CODE}&pin=${PIN}&x=1`, /pin is not sha256: and 64/],
      [`http://box/#join=${CODE}&pin=${PIN}`, /a pinned link is https/],
    ];
    for (const [link, why] of refused) {
      const parsed = parseJoinLink(link);
      assert.ok('error' in parsed, link);
      assert.match(parsed.error, why, link);
    }
  });
});
