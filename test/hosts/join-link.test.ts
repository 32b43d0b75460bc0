// A host's join link (issue 31): where the hub reaches the host, and the one-time code in the fragment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinLink, parseJoinLink } from '../../src/hosts/join-link.js';

const CODE = 'Zk3_qP0-abcdefghijkLMN';

describe('join links', () => {
  it('round-trips the host URL and the code, with or without a path or a trailing slash', () => {
    for (const url of ['https://box.example.ts.net', 'http://127.0.0.1:8484', 'https://proxy.lan/leo'])
      for (const given of [url, `${url}/`]) assert.deepEqual(parseJoinLink(joinLink(given, CODE)), { url, code: CODE });
    assert.equal(joinLink('https://box.example.ts.net/', CODE), `https://box.example.ts.net/#join=${CODE}`);
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
    ];
    for (const [link, why] of refused) {
      const parsed = parseJoinLink(link);
      assert.ok('error' in parsed, link);
      assert.match(parsed.error, why, link);
    }
  });
});
