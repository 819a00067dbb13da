/** HTML escaping of every interpolated value. */
import { describe, expect, it } from 'vitest';
import { renderConsent } from '../../../src/interactions/views/consent.js';
import { escapeHtml } from '../../../src/interactions/views/layout.js';
import { renderLogin } from '../../../src/interactions/views/login.js';
import { renderError } from '../../../src/interactions/views/message.js';

const evil = `"'><img src=x onerror=alert(1)>\`&`;

describe('views', () => {
  it('escapes HTML metacharacters', () => {
    expect(escapeHtml(evil)).toBe('&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;&#96;&amp;');
    expect(escapeHtml(undefined)).toBe('');
  });

  it('never emits a raw value into login, consent or error pages', () => {
    const pages = [
      renderLogin({
        action: evil,
        abortAction: evil,
        csrf: evil,
        clientName: evil,
        identifier: evil,
        error: evil,
      }),
      renderConsent({
        action: evil,
        abortAction: evil,
        csrf: evil,
        clientName: evil,
        requests: [{ audience: evil, scopes: [evil] }],
      }),
      renderError(evil, evil),
    ];
    for (const html of pages) {
      expect(html).not.toContain('<img');
      expect(html).not.toContain(`"'>`);
      expect(html).not.toMatch(/<script/i);
    }
  });
});
