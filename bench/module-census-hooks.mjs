/** The loader hook of module-census.mjs: every module URL loaded, posted to the main thread. */
let port;

/** Receives the port to post on. */
export function initialize(data) {
  port = data.port;
}

/** Posts the URL, then loads as the next hook would. */
export async function load(url, context, next) {
  port.postMessage(url);
  return next(url, context);
}
