import { createRequire } from 'node:module';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
const require = createRequire(process.cwd() + '/package.json');
const sdk = require('@opentelemetry/sdk-trace');
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
const { createVerifier } = await import('./dist/index.js');
const b64 = (x) => Buffer.from(x).toString('base64url');
const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const now = Math.floor(Date.now()/1000);
const input = b64(JSON.stringify({alg:'ES256',kid:'k',typ:'at+jwt'}))+'.'+b64(JSON.stringify({iss:'https://i', sub:'u', aud:'https://a', client_id:'c', iat:now, exp: now+3600, jti:'j'}));
const token = input + '.' + b64(sign('sha256', Buffer.from(input), {key: pair.privateKey, dsaEncoding:'ieee-p1363'}));
const jwk = {...pair.publicKey.export({format:'jwk'}), kid:'k', alg:'ES256'};
const server = createServer((q,r)=>r.writeHead(200,{'content-type':'application/json'}).end(JSON.stringify({keys:[jwk]})));
await new Promise(r=>server.listen(0,'127.0.0.1',r));
const common = {issuer:'https://i', audience:'https://a', jwksUri:`http://127.0.0.1:${server.address().port}/jwks`};
class Discard { export(s, cb) { cb({code:0}); } shutdown() { return Promise.resolve(); } }
const tp = new sdk.TracerProvider({ spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new Discard() })] });
class R extends MetricReader { async onShutdown(){} async onForceFlush(){} }
const mp = new MeterProvider({ readers: [new R()] });
const which = process.argv[2];
const v = createVerifier({...common, telemetry: which === 'off' ? false : { tracerProvider: tp, meterProvider: mp }});
await v.verify(token);
const n = 300000; const c = process.cpuUsage();
for (let i=0;i<n;i++) await v.verify(token);
const u = process.cpuUsage(c);
console.log(which, ((u.user+u.system)*1000/n).toFixed(0), 'ns cpu/op');
server.close();
