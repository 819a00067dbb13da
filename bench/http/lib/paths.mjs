/** Where the built Gatehouse packages are: the benchmark measures their dist, as users install it. */
export const gatehouseDist = (name) => new URL(`../../../packages/${name}/dist/index.js`, import.meta.url);
