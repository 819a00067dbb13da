// workerd entry: its clock stands still while code runs, so batches are timed by the caller (run.mjs).
import { batch, prepare } from './web-verify.mjs';

let prepared;
export default {
  async fetch(request, env) {
    prepared ??= await prepare(JSON.parse(env.CONFIG));
    const url = new URL(request.url);
    const alg = url.searchParams.get('alg');
    const name = url.searchParams.get('name');
    if (alg === null || name === null) return new Response('ready');
    await batch(prepared[alg][name], Number(url.searchParams.get('n')));
    return new Response('ok');
  },
};
