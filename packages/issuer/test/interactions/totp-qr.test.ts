/**
 * The TOTP enrolment page's QR code (issue #29 item 8: a phone user should not have to type 32
 * characters): the inline SVG drawn from `qrcode`'s modules is read back by an independent decoder
 * (jsQR, on the SVG's modules painted into pixels) and holds exactly the `otpauth://` enrolment URI.
 */
import jsQRModule from 'jsqr';
import { describe, expect, it } from 'vitest';
import { enrolmentQrSvg, enrolmentUri, newSecret } from '../../src/interactions/totp.js';
import { renderTotp } from '../../src/interactions/views/totp.js';

/** jsQR is CommonJS: its function is `module.exports` and, typed, its `default`. */
const jsQR = jsQRModule.default;

/** Paint an SVG of `M{x} {y}h1v1h-1z` modules into RGBA pixels, `scale` pixels per module. */
function paint(svg: string, scale = 4): { data: Uint8ClampedArray; width: number; height: number } {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const width = side * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  const path = /<path d="([^"]*)"/.exec(svg)![1]!;
  for (const [, x, y] of path.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy++)
      for (let dx = 0; dx < scale; dx++) {
        const at = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        data.fill(0, at, at + 3);
      }
  }
  return { data, width, height: width };
}

describe('the enrolment QR code', () => {
  it('decodes to the enrolment URI', () => {
    const uri = enrolmentUri(newSecret(), 'alice@example.com', 'id.example.com');
    const svg = enrolmentQrSvg(uri);
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-label="[^"]+"/);
    const image = paint(svg);
    expect(jsQR(image.data, image.width, image.height)?.data).toBe(uri);
  });

  it('is on the enrolment page (with the key and the link), and not on the code page', () => {
    const key = newSecret();
    const uri = enrolmentUri(key, 'alice', 'id.example.com');
    const base = { action: '/i/1/totp', abortAction: '/i/1/abort', csrf: 'c', step: 's', clientName: 'App' };
    const enrol = renderTotp({ ...base, enrolment: { key, uri } });
    const svg = /<svg [\s\S]*?<\/svg>/.exec(enrol)![0];
    const image = paint(svg);
    expect(jsQR(image.data, image.width, image.height)?.data).toBe(uri);
    expect(enrol).toContain('id="totp-key"');
    expect(enrol).toContain('id="totp-uri"');
    expect(renderTotp(base)).not.toContain('<svg');
  });
});
