// Bun and Deno entry of the WebCrypto micro benchmark: config JSON in the first argument, results as one JSON line.
import { measure } from './web-verify.mjs';

const arg = typeof Deno !== 'undefined' ? Deno.args[0] : process.argv[2];
console.log(JSON.stringify(await measure(JSON.parse(arg))));
